/**
 * How write suites measure a durable write route: the hello-world comparison, then the same
 * requests (same load generator, script and connections) against the durable-write floor, bare
 * uWebSockets.js that stores one document per request in LMDB (`bench/floor-server.ts`). A
 * write target is only reachable below the floor's own ratio, so reports show both, and how
 * much of the floor the server keeps.
 */
import { figureServerCpu } from './cpu.js';
import type { LoadSpec } from './load.js';
import type { Comparison, SuiteContext } from './suite.js';

/** A write route under load. */
export interface DurableWriteSpec {
  /** Row label of the server's run. */
  readonly label: string;
  /** The server's route, with `serverPid` so its CPU is reported. */
  readonly subject: LoadSpec;
  /** Origin of the hello-world baseline. */
  readonly baselineUrl: string;
  /** One request, in figure labels ("vote"). */
  readonly what: string;
  /** Label of the requests-per-second figure ("durable votes per second"). */
  readonly rpsLabel: string;
}

/**
 * Measures baseline, server, baseline and floor, and records the figures every write suite
 * reports: `ratio`, `rps`, `baselineRps`, `p50Ms`, `p99Ms`, the server's CPU per request,
 * `floorRatio` (floor ÷ baseline), `ofFloor` (server ÷ floor), `floorMainCpuUs` and
 * `failedRequests`.
 */
export async function compareDurableWrites(ctx: SuiteContext, spec: DurableWriteSpec): Promise<Comparison> {
  const connections = spec.subject.connections;
  const cmp = await ctx.compare({
    label: spec.label,
    subject: spec.subject,
    baseline: { url: `${spec.baselineUrl}/`, ...(connections !== undefined ? { connections } : {}) },
  });
  const s = cmp.subject;
  ctx.figure({ key: 'ratio', label: 'throughput ÷ hello-world throughput', value: cmp.ratio, unit: '×', digits: 3 });
  ctx.figure({ key: 'rps', label: spec.rpsLabel, value: s.rps, unit: 'req/s' });
  ctx.figure({ key: 'baselineRps', label: 'hello-world throughput (mean of both runs)', value: cmp.baselineRps, unit: 'req/s' });
  ctx.figure({ key: 'p50Ms', label: `${spec.what} latency p50`, value: s.latencyMs.p50, unit: 'ms' });
  ctx.figure({ key: 'p99Ms', label: `${spec.what} latency p99`, value: s.latencyMs.p99, unit: 'ms' });
  figureServerCpu(ctx, s, spec.what);
  await compareWithFloor(ctx, cmp, spec.subject, spec.what);
  ctx.figure({ key: 'failedRequests', label: 'failed requests (socket errors, timeouts, non-2xx)', value: s.errors.total, unit: '' });
  return cmp;
}

async function compareWithFloor(ctx: SuiteContext, cmp: Comparison, subject: LoadSpec, what: string): Promise<void> {
  const floor = await ctx.startFloor();
  const target = new URL(subject.url);
  const result = await ctx.load({ ...subject, url: `${floor.url}${target.pathname}${target.search}`, serverPid: floor.pid });
  const floorRatio = result.rps / cmp.baselineRps;
  ctx.row({
    label: `durable-write floor: bare uWebSockets.js, one LMDB document per request (c=${result.connections})`,
    role: 'reference',
    throughput: result.rps,
    unit: 'req/s',
    p50Ms: result.latencyMs.p50,
    p99Ms: result.latencyMs.p99,
    errors: result.errors.total,
    ratio: floorRatio,
  });
  ctx.figure({ key: 'floorRatio', label: 'durable-write floor ÷ hello-world throughput', value: floorRatio, unit: '×', digits: 3 });
  ctx.figure({ key: 'ofFloor', label: `${what}s per second ÷ durable-write floor`, value: cmp.subject.rps / result.rps, unit: '×', digits: 3 });
  const cpu = result.serverCpu;
  if (cpu !== undefined) {
    ctx.figure({ key: 'floorMainCpuUs', label: 'floor main-thread CPU per request', value: cpu.mainThreadUs, unit: 'µs', digits: 1 });
  }
}
