/**
 * The durable-write floor beside a write suite's comparison: the same requests, from the same
 * load generator and connections, against bare uWebSockets.js that stores one document per
 * request in LMDB (`bench/floor-server.ts`). A write target is only reachable if it sits below
 * the floor's own ratio, so reports show both, and how much of the floor the server keeps.
 */
import type { LoadSpec } from './load.js';
import type { Comparison, SuiteContext } from './suite.js';

/**
 * Loads the floor like `subject` (a write route of the server) and records its row and the
 * figures `floorRatio` (floor ÷ baseline) and `ofFloor` (subject ÷ floor); `what` names a
 * request in labels ("vote").
 */
export async function compareWithFloor(ctx: SuiteContext, cmp: Comparison, subject: LoadSpec, what: string): Promise<void> {
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
