/**
 * What metrics cost: the server's CPU per request with `METRICS_PORT` set (timings taken,
 * scraped every 5 s) against the same server without it, on `GET /api/v1/comments` (a
 * 500-comment page, as `comments-get`) and `POST /api/v1/votes` (durable votes on one page,
 * as `votes-post`). Each round starts two fresh servers, seeded alike, and measures them in
 * turns, the order swapped each round, so that a machine getting busier weighs on both alike.
 */
import { findWrk, type LoadResult, type LoadSpec } from '../lib/load.js';
import { freePort } from '../../test/fixtures/ports.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { seed as seedPage } from './comments-get.js';
import { luaScript, seed as seedVotes } from './votes-post.js';

const ROUNDS = 4;
/** Prometheus is usually set to scrape every 15 to 60 s; every 5 s is a harsh case. */
const SCRAPE_EVERY_MS = 5000;

interface Workload {
  readonly key: string;
  readonly label: string;
  readonly spec: (server: ServerProcess, voteIds: readonly string[]) => LoadSpec;
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The middle value. On a shared machine a run now and then gets a fraction of the CPU it asked
 * for; the work done between requests (timers, scrapes) then weighs on few requests, so one such
 * run would move a mean far more than what is measured.
 */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Pair {
  readonly off: ServerProcess;
  readonly on: ServerProcess;
  readonly metricsPort: number;
  readonly voteIds: Map<ServerProcess, string[]>;
}

/** Two fresh servers, one metered, seeded alike. */
async function startPair(ctx: SuiteContext): Promise<Pair> {
  const metricsPort = await freePort();
  const [off, on] = await Promise.all([ctx.startServer(), ctx.startServer({ env: { METRICS_PORT: String(metricsPort) } })]);
  const voteIds = new Map<ServerProcess, string[]>();
  await Promise.all(
    [off, on].map(async (server) => {
      await seedPage(server);
      voteIds.set(server, await seedVotes(server));
    }),
  );
  const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  if (metrics.status !== 200) throw new Error(`the metered server's listener answered ${metrics.status}`);
  return { off, on, metricsPort, voteIds };
}

async function run(ctx: SuiteContext): Promise<void> {
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
      spec: (server, ids) =>
        wrk
          ? { url: `${server.url}/api/v1/votes`, method: 'POST', headers: server.authHeaders, lua: luaScript(ids), serverPid: server.pid }
          : {
              url: `${server.url}/api/v1/votes?commentId=${ids[0]}&direction=up&userId=u[<id>]`,
              method: 'POST',
              headers: server.authHeaders,
              idReplacement: true,
              tool: 'autocannon',
              serverPid: server.pid,
            },
    },
  ];
  const results = new Map(workloads.map((w) => [w.key, { off: [] as LoadResult[], on: [] as LoadResult[] }]));
  let scrapes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // A fresh pair each round: a process's own luck (its cores, its memory layout) would
    // otherwise weigh on every round alike.
    ctx.progress(`round ${round + 1} of ${ROUNDS}: starting and seeding two servers`);
    const pair = await startPair(ctx);
    // A Prometheus of its own for the metered server, scraping throughout.
    const scraper = setInterval(() => {
      void fetch(`http://127.0.0.1:${pair.metricsPort}/metrics`)
        .then((res) => res.text())
        .then(() => scrapes++, () => undefined);
    }, SCRAPE_EVERY_MS);
    try {
      for (const workload of workloads) {
        const order: ('off' | 'on')[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
        for (const side of order) {
          const server = pair[side];
          results.get(workload.key)![side].push(await ctx.load(workload.spec(server, pair.voteIds.get(server)!)));
        }
      }
    } finally {
      clearInterval(scraper);
      await Promise.all([pair.off.stop(), pair.on.stop()]);
    }
  }

  for (const workload of workloads) {
    const sides = results.get(workload.key)!;
    for (const side of ['off', 'on'] as const) {
      const rs = sides[side];
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
      const values = sides[side].map((r) => r.serverCpu?.[which]).filter((v): v is number => v !== undefined);
      return values.length === 0 ? undefined : median(values);
    };
    for (const which of ['mainThreadUs', 'processUs'] as const) {
      const offCpu = cpu('off', which);
      const onCpu = cpu('on', which);
      if (offCpu === undefined || onCpu === undefined) continue;
      const thread = which === 'mainThreadUs' ? 'main-thread' : 'all-threads';
      const short = which === 'mainThreadUs' ? 'Main' : 'Process';
      ctx.figure({ key: `${workload.key}${short}CpuOffUs`, label: `${workload.label}: ${thread} CPU per request, metrics off (median)`, value: offCpu, unit: 'µs', digits: 1 });
      ctx.figure({ key: `${workload.key}${short}CpuOnUs`, label: `${workload.label}: ${thread} CPU per request, metrics on (median)`, value: onCpu, unit: 'µs', digits: 1 });
      ctx.figure({ key: `${workload.key}${short}Overhead`, label: `${workload.label}: ${thread} CPU per request, on ÷ off − 1`, value: (onCpu / offCpu - 1) * 100, unit: '%', digits: 1 });
    }
    const rpsRatio = mean(sides.on.map((r) => r.rps)) / mean(sides.off.map((r) => r.rps));
    ctx.figure({ key: `${workload.key}RpsRatio`, label: `${workload.label}: throughput on ÷ off`, value: rpsRatio, unit: '×', digits: 3 });
  }
  ctx.figure({ key: 'scrapes', label: 'scrapes of the metered servers during the runs', value: scrapes, unit: '' });
  ctx.note(
    `Runs interleaved: ${ROUNDS} rounds, each on a fresh pair of servers, the order of the two swapped each round; the metered server was scraped every ${SCRAPE_EVERY_MS} ms throughout. CPU figures are medians of the rounds; every run's are in the JSON report.`,
  );
  if (!wrk) ctx.note('Without wrk, each vote comes from a user of its own (autocannon replaces `[<id>]` in the URL per request), on one comment: every vote is a new durable write.');
}

/** See the module comment. */
export const metricsOverhead: Suite = {
  name: 'metrics-overhead',
  description: 'Server CPU per request with METRICS_PORT set (scraped every 5 s) versus unset, on comments-get and votes-post traffic, measured in interleaved runs.',
  targets: [
    { figure: 'commentsGetMainOverhead', op: '<=', value: 3, description: 'GET comments: main-thread CPU added by metrics (%)' },
    { figure: 'votesPostMainOverhead', op: '<=', value: 3, description: 'POST votes: main-thread CPU added by metrics (%)' },
  ],
  run,
};
