/**
 * `POST /api/v1/votes` on one hot page: many distinct users voting on the 100 comments of the
 * page, each vote durable on LMDB before it is answered, against the hello-world baseline.
 *
 * Requests come from a wrk Lua script: request i votes as user (i ÷ 100) mod 2000 on comment
 * i mod 100, alternating up and down on each later visit of the same pair, so every vote is
 * accepted (a vote the other way replaces the earlier one) and none is a `duplicate`. User
 * ids carry a per-run tag, so the warm-up and measured runs never repeat each other's votes.
 */
import type { ServerProcess } from '../lib/processes.js';
import { compareDurableWrites } from '../lib/durable-writes.js';
import type { LoadSpec } from '../lib/load.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const URL_ID = 'bench-votes';
const COMMENTS = 100;
const USERS = 2000;
/**
 * Votes in flight. The page actor and the tenant ledger each commit in batches, so more votes in
 * flight make bigger batches and more votes per second, at the price of latency: on this
 * machine 64 gives about 0.16 of the baseline at a p99 of 15-23 ms, 32 about 0.10, and 128
 * about 0.17 at a p99 of 25-38 ms (`--connections N`).
 */
const DEFAULT_CONNECTIONS = 64;

export async function seed(server: Pick<ServerProcess, 'url' | 'authHeaders'>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < COMMENTS; i++) {
    const res = await fetch(`${server.url}/api/v1/comments`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ commenterName: `Author ${i}`, comment: `Vote on comment ${i}`, url: 'https://example.com/votes', urlId: URL_ID, locale: 'en_us' }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`seeding comment ${i}: ${res.status} ${text}`);
    ids.push((JSON.parse(text) as { comment: { _id: string } }).comment._id);
  }
  return ids;
}

export function luaScript(commentIds: readonly string[]): string {
  return `
local ids = { ${commentIds.map((id) => `"${id}"`).join(', ')} }
math.randomseed(os.time() + math.floor(os.clock() * 1e6))
local tag = tostring(math.random(1, 1000000000))
local i = 0
request = function()
  local comment = ids[(i % ${COMMENTS}) + 1]
  local pair = math.floor(i / ${COMMENTS})
  local user = pair % ${USERS}
  local direction = (math.floor(pair / ${USERS}) % 2 == 0) and "up" or "down"
  i = i + 1
  return wrk.format("POST", "/api/v1/votes?commentId=" .. comment .. "&direction=" .. direction .. "&userId=u" .. tag .. "-" .. user)
end
`;
}

async function run(ctx: SuiteContext): Promise<void> {
  const baseline = await ctx.startBaseline();
  const server = await ctx.startServer();
  ctx.progress(`seeding ${COMMENTS} comments`);
  const ids = await seed(server);

  const probe = await fetch(`${server.url}/api/v1/votes?commentId=${ids[0]}&direction=up&userId=probe`, { method: 'POST', headers: server.authHeaders });
  const probeText = await probe.text();
  if (probe.status !== 200) throw new Error(`POST /api/v1/votes answered ${probe.status} ${probeText}`);

  const connections = ctx.options.connections ?? DEFAULT_CONNECTIONS;
  const subject: LoadSpec = { url: `${server.url}/api/v1/votes`, method: 'POST', headers: server.authHeaders, lua: luaScript(ids), connections, serverPid: server.pid };
  await compareDurableWrites(ctx, {
    label: `POST /api/v1/votes (one page, ${COMMENTS} comments, ${USERS} users, durable)`,
    subject,
    baselineUrl: baseline.url,
    what: 'vote',
    rpsLabel: 'durable votes per second',
  });

  // The counts the page serves must equal the votes it stored: read them back.
  const res = await fetch(`${server.url}/api/v1/votes?urlId=${URL_ID}`, { headers: server.authHeaders });
  const lists = (await res.json()) as { appliedAuthorizedVotes: { commentId: string; direction: string }[] };
  const expected = new Map<string, number>();
  for (const v of lists.appliedAuthorizedVotes) expected.set(v.commentId, (expected.get(v.commentId) ?? 0) + (v.direction === 'up' ? 1 : -1));
  let mismatches = 0;
  for (const id of ids) {
    const c = await fetch(`${server.url}/api/v1/comments/${id}`, { headers: server.authHeaders });
    const comment = ((await c.json()) as { comment: { votes: number } }).comment;
    if (comment.votes !== (expected.get(id) ?? 0)) mismatches++;
  }
  ctx.figure({ key: 'storedVotes', label: 'votes held by the page after the runs', value: lists.appliedAuthorizedVotes.length, unit: '' });
  ctx.figure({ key: 'countMismatches', label: 'comments whose votes differ from their listed votes', value: mismatches, unit: '' });
  const rss = server.rssBytes();
  if (rss !== undefined) ctx.figure({ key: 'serverRssMb', label: 'server resident memory after the load', value: rss / 1024 / 1024, unit: 'MB', digits: 0 });
  ctx.note(`${connections} connections: each vote waits for two durable commits (the page's and the tenant ledger's), which batch the votes in flight; fewer connections make smaller batches and fewer votes per second.`);
}

/** See the module comment. */
export const votesPost: Suite = {
  name: 'votes-post',
  description: 'POST /api/v1/votes on one hot page from many users (durable on LMDB, API key, credit charged) versus a bare uWebSockets.js hello world.',
  targets: [
    { figure: 'ratio', op: '>=', value: 0.25, description: 'share of hello-world throughput' },
    { figure: 'p99Ms', op: '<=', value: 25, description: 'vote latency p99 (ms)' },
    { figure: 'failedRequests', op: '<=', value: 0, description: 'failed requests under load' },
    { figure: 'countMismatches', op: '<=', value: 0, description: 'counts equal the stored votes' },
  ],
  run,
};
