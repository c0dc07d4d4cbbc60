/**
 * What metrics cost: the server's CPU per request with `METRICS_PORT` set (timings taken,
 * scraped every second) against the same server without it, on `GET /api/v1/comments` (a
 * 500-comment page, as `comments-get`) and `POST /api/v1/votes` (durable votes on one page,
 * as `votes-post`). Two servers run side by side and are measured in turns, the order swapped
 * each round, so that a machine getting busier weighs on both alike.
 */
import { findWrk, type LoadResult, type LoadSpec } from '../lib/load.js';
import { freePort } from '../../test/fixtures/ports.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { seed as seedPage } from './comments-get.js';
import { luaScript, seed as seedVotes } from './votes-post.js';

const ROUNDS = 3;
/** Prometheus scrapes every 15 s or so; every second is a harsh case. */
const SCRAPE_EVERY_MS = 1000;

interface Workload {
  readonly key: string;
  readonly label: string;
  readonly spec: (server: ServerProcess) => LoadSpec;
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

async function run(ctx: SuiteContext): Promise<void> {
  const metricsPort = await freePort();
  const off = await ctx.startServer();
  const on = await ctx.startServer({ env: { METRICS_PORT: String(metricsPort) } });
  const voteIds = new Map<ServerProcess, string[]>();
  for (const server of [off, on]) {
    ctx.progress(`seeding ${server === on ? 'the metered' : 'the plain'} server`);
    await seedPage(server);
    voteIds.set(server, await seedVotes(server));
  }
  const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  if (metrics.status !== 200) throw new Error(`the metered server's listener answered ${metrics.status}`);

  const wrk = ctx.options.tool !== 'autocannon' && findWrk() !== undefined;
  const workloads: Workload[] = [
    {
      key: 'commentsGet',
      label: 'GET /api/v1/comments (500 comments, page of 30)',
      spec: (server) => ({ url: `${server.url}/api/v1/comments?urlId=bench-page`, headers: server.authHeaders, serverPid: server.pid }),
    },
    {
      key: 'votesPost',
      label: 'POST /api/v1/votes (durable)',
      // wrk votes as votes-post does; autocannon gives each vote a user of its own.
      spec: (server) =>
        wrk
          ? { url: `${server.url}/api/v1/votes`, method: 'POST', headers: server.authHeaders, lua: luaScript(voteIds.get(server)!), serverPid: server.pid }
          : {
              url: `${server.url}/api/v1/votes?commentId=${voteIds.get(server)![0]}&direction=up&userId=u[<id>]`,
              method: 'POST',
              headers: server.authHeaders,
              idReplacement: true,
              tool: 'autocannon',
              serverPid: server.pid,
            },
    },
  ];

  // A Prometheus of its own for the metered server, scraping throughout.
  let scrapes = 0;
  const scraper = setInterval(() => {
    void fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      .then((res) => res.text())
      .then(() => scrapes++, () => undefined);
  }, SCRAPE_EVERY_MS);
  ctx.onCleanup(() => clearInterval(scraper));

  for (const workload of workloads) {
    const results = { off: [] as LoadResult[], on: [] as LoadResult[] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: ('off' | 'on')[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const side of order) {
        const server = side === 'on' ? on : off;
        results[side].push(await ctx.load(workload.spec(server)));
      }
    }
    for (const side of ['off', 'on'] as const) {
      const rs = results[side];
      ctx.row({
        label: `${workload.label}, metrics ${side} (mean of ${rs.length} runs, c=${rs[0]!.connections})`,
        role: side === 'off' ? 'baseline' : 'subject',
        throughput: mean(rs.map((r) => r.rps)),
        unit: 'req/s',
        p50Ms: mean(rs.map((r) => r.latencyMs.p50)),
        p99Ms: mean(rs.map((r) => r.latencyMs.p99)),
        errors: rs.reduce((n, r) => n + r.errors.total, 0),
      });
    }
    const cpu = (side: 'off' | 'on', which: 'mainThreadUs' | 'processUs') => {
      const values = results[side].map((r) => r.serverCpu?.[which]).filter((v): v is number => v !== undefined);
      return values.length === 0 ? undefined : mean(values);
    };
    for (const which of ['mainThreadUs', 'processUs'] as const) {
      const offCpu = cpu('off', which);
      const onCpu = cpu('on', which);
      if (offCpu === undefined || onCpu === undefined) continue;
      const thread = which === 'mainThreadUs' ? 'main-thread' : 'all-threads';
      const short = which === 'mainThreadUs' ? 'Main' : 'Process';
      ctx.figure({ key: `${workload.key}${short}CpuOffUs`, label: `${workload.label}: ${thread} CPU per request, metrics off`, value: offCpu, unit: 'µs', digits: 1 });
      ctx.figure({ key: `${workload.key}${short}CpuOnUs`, label: `${workload.label}: ${thread} CPU per request, metrics on`, value: onCpu, unit: 'µs', digits: 1 });
      ctx.figure({ key: `${workload.key}${short}Overhead`, label: `${workload.label}: ${thread} CPU per request, on ÷ off − 1`, value: (onCpu / offCpu - 1) * 100, unit: '%', digits: 1 });
    }
    const rpsRatio = mean(results.on.map((r) => r.rps)) / mean(results.off.map((r) => r.rps));
    ctx.figure({ key: `${workload.key}RpsRatio`, label: `${workload.label}: throughput on ÷ off`, value: rpsRatio, unit: '×', digits: 3 });
  }
  ctx.figure({ key: 'scrapes', label: 'scrapes of the metered server during the runs', value: scrapes, unit: '' });
  ctx.note(`Runs interleaved: ${ROUNDS} rounds per route, the order of the two servers swapped each round; the metered server was scraped every ${SCRAPE_EVERY_MS} ms throughout.`);
  if (!wrk) ctx.note('Without wrk, each vote comes from a user of its own (autocannon replaces `[<id>]` in the URL per request), on one comment: every vote is a new durable write.');
}

/** See the module comment. */
export const metricsOverhead: Suite = {
  name: 'metrics-overhead',
  description: 'Server CPU per request with METRICS_PORT set (scraped every second) versus unset, on comments-get and votes-post traffic, measured in interleaved runs.',
  targets: [
    { figure: 'commentsGetMainOverhead', op: '<=', value: 3, description: 'GET comments: main-thread CPU added by metrics (%)' },
    { figure: 'votesPostMainOverhead', op: '<=', value: 3, description: 'POST votes: main-thread CPU added by metrics (%)' },
  ],
  run,
};
