/**
 * The widget API's vote (`POST /comments/{tenantId}/{commentId}/vote`, no API key, an anonymous
 * session carried by `sessionId`) on one hot page of 100 comments, each vote durable on LMDB
 * before it is answered, against the hello-world baseline and the durable-write floor
 * (bench/floor-server.ts) with the same requests and connections.
 *
 * Request i votes up as a new reader: its `sessionId` (22 URL-safe characters, as the server
 * issues them) is made of a per-thread tag and i, so every vote is accepted and none is
 * `already-voted`, and the warm-up and measured runs never repeat each other's voters.
 */
import { rawLoad } from '../lib/raw-driver.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { seed } from './votes-post.js';

const URL_ID = 'bench-votes';
const COMMENTS = 100;
/** Votes in flight, as `votes-post` (`--connections N`). */
const DEFAULT_CONNECTIONS = 64;

/** The i-th vote of run `tag`: comment i mod 100, as reader `b<tag><i>` (a session id of 22 characters). */
function voteRequest(host: string, tenantId: string, commentIds: readonly string[], tag: number): (i: number) => string {
  const body = '{"voteDir":"up"}';
  return (i) => {
    const session = `b${String(tag).padStart(6, '0')}${String(i).padStart(15, '0')}`;
    const path = `/comments/${tenantId}/${commentIds[i % COMMENTS]}/vote?urlId=${URL_ID}&sessionId=${session}`;
    return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };
}

async function run(ctx: SuiteContext): Promise<void> {
  const server = await ctx.startServer();
  ctx.progress(`seeding ${COMMENTS} comments`);
  const ids = await seed(server);
  const tenantId = server.tenant.tenantId;
  const probe = await fetch(`${server.url}/comments/${tenantId}/${ids[0]}/vote?urlId=${URL_ID}&sessionId=probeprobeprobeprobe00`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"voteDir":"up"}',
  });
  const probeText = await probe.text();
  if (probe.status !== 200) throw new Error(`POST /comments/{tenantId}/{commentId}/vote answered ${probe.status} ${probeText}`);
  const floor = await ctx.startFloor();

  const connections = ctx.options.connections ?? DEFAULT_CONNECTIONS;
  const { durationSeconds, warmupSeconds } = ctx.options;
  const measure = async (label: string, origin: string, tag: number) => {
    const host = new URL(origin).host;
    if (warmupSeconds > 0) {
      ctx.progress(`warm-up ${label} (${warmupSeconds} s)`);
      await rawLoad(origin, connections, warmupSeconds, voteRequest(host, tenantId, ids, tag));
    }
    ctx.progress(`measure ${label} (${durationSeconds} s)`);
    return rawLoad(origin, connections, durationSeconds, voteRequest(host, tenantId, ids, tag + 1));
  };
  // Floor, server, floor: the floor's mean is the reference, as the hello world's is elsewhere.
  const floorBefore = await measure('durable-write floor, before', floor.url, 10);
  const subject = await measure('public votes', server.url, 20);
  const floorAfter = await measure('durable-write floor, after', floor.url, 30);
  const floorRps = (floorBefore.rps + floorAfter.rps) / 2;
  for (const [label, r, role] of [
    ['durable-write floor (before)', floorBefore, 'reference'],
    [`POST /comments/{tenantId}/{commentId}/vote (a new reader per vote, c=${connections})`, subject, 'subject'],
    ['durable-write floor (after)', floorAfter, 'reference'],
  ] as const) {
    ctx.row({ label, role, throughput: r.rps, unit: 'req/s', p50Ms: r.p50Ms, p99Ms: r.p99Ms, errors: r.non2xx, ratio: r.rps / floorRps });
  }
  ctx.figure({ key: 'ofFloor', label: 'public votes per second ÷ durable-write floor', value: subject.rps / floorRps, unit: '×', digits: 3 });
  ctx.figure({ key: 'rps', label: 'durable public votes per second', value: subject.rps, unit: 'req/s' });
  ctx.figure({ key: 'floorRps', label: 'durable-write floor (mean of both runs)', value: floorRps, unit: 'req/s' });
  ctx.figure({ key: 'floorDrift', label: 'floor after ÷ floor before', value: floorAfter.rps / floorBefore.rps, unit: '×', digits: 2 });
  ctx.figure({ key: 'p50Ms', label: 'vote latency p50', value: subject.p50Ms, unit: 'ms' });
  ctx.figure({ key: 'p99Ms', label: 'vote latency p99', value: subject.p99Ms, unit: 'ms' });
  ctx.figure({ key: 'failedRequests', label: 'non-2xx answers', value: subject.non2xx, unit: '' });
  ctx.note(`${connections} connections, driven by bench/lib/raw-driver.ts (wrk is not installed here, and autocannon replays one request list on every connection, so per-request readers would collide); the floor gets the same requests from the same driver. A public vote resolves the reader (the session's public id: a SHA-256), finds the comment's page, commits the vote on the page actor (batched with the votes in flight), counts it in the tenant's daily usage in memory, and answers an edit key (an HMAC).`);
}

/** See the module comment. */
export const publicVotes: Suite = {
  name: 'public-votes',
  description: 'POST /comments/{tenantId}/{commentId}/vote (widget API, anonymous sessions, durable on LMDB) versus the durable-write floor and a bare uWebSockets.js hello world.',
  targets: [
    { figure: 'ofFloor', op: '>=', value: 0.5, description: 'share of the durable-write floor' },
    { figure: 'failedRequests', op: '<=', value: 0, description: 'failed requests under load' },
  ],
  run,
};
