/**
 * CPU time of processes and threads, from Linux's /proc (undefined elsewhere). On this shared
 * machine the CPU a server spends per request moves far less from run to run than requests
 * per second do, so suites report it beside their ratios.
 */
import { readFileSync } from 'node:fs';
import type { LoadResult } from './load.js';
import type { ReportRow, SuiteContext } from './suite.js';

/** utime + stime of a /proc stat line, in seconds (clock ticks are 1/100 s on Linux). */
function statSeconds(path: string): number | undefined {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds process `pid` has used, all its threads together. */
export function processCpuSeconds(pid: number): number | undefined {
  return statSeconds(`/proc/${pid}/stat`);
}

/** CPU seconds the main thread of process `pid` (the JavaScript thread of a Node.js server) has used. */
export function mainThreadCpuSeconds(pid: number): number | undefined {
  return statSeconds(`/proc/${pid}/task/${pid}/stat`);
}

/** CPU seconds the whole machine has been busy (every state but idle and iowait). */
export function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return (total - ticks[3]! - ticks[4]!) / 100;
}

/**
 * Adds to the suite's figures the server CPU per request of a run made with `serverPid`
 * (`mainCpuUs`, `processCpuUs`); `what` names a request in the labels ("vote").
 */
export function figureServerCpu(ctx: SuiteContext, result: LoadResult, what: string): void {
  const cpu = result.serverCpu;
  if (cpu === undefined) return;
  ctx.figure({ key: 'mainCpuUs', label: `server main-thread CPU per ${what} (steadier than req/s here)`, value: cpu.mainThreadUs, unit: 'µs', digits: 1 });
  ctx.figure({ key: 'processCpuUs', label: `server CPU per ${what}, all threads`, value: cpu.processUs, unit: 'µs', digits: 1 });
}

/** A report row of an HTTP load run (requests per second, latency, errors, ratio to a baseline). */
export function loadRow(label: string, role: ReportRow['role'], result: LoadResult, ratio?: number): ReportRow {
  return { label, role, throughput: result.rps, unit: 'req/s', p50Ms: result.latencyMs.p50, p99Ms: result.latencyMs.p99, errors: result.errors.total, ...(ratio === undefined ? {} : { ratio }) };
}

/** The mean main-thread CPU per request of runs made with `serverPid`, or undefined. */
export function meanMainCpuUs(results: readonly LoadResult[]): number | undefined {
  const values = results.map((r) => r.serverCpu?.mainThreadUs).filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
}
