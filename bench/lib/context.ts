/**
 * Runs one suite: gives it a `SuiteContext`, keeps track of everything it starts, cleans up,
 * and assembles its report.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { mainThreadCpuSeconds, processCpuSeconds } from './cpu.js';
import { findWrk, load as runLoad, type LoadResult, type LoadSpec } from './load.js';
import {
  startBaselineProcess,
  startFloorProcess,
  startServerProcess,
  type BaselineProcess,
  type FloorProcess,
  type RunningProcess,
  type ServerProcess,
  type StartServerOptions,
} from './processes.js';
import { judge, type Environment, type SuiteReport } from './report.js';
import type { CompareSpec, Comparison, Figure, ReportRow, RunOptions, Suite, SuiteContext } from './suite.js';

const MB = 1024 * 1024;

function environment(options: RunOptions): Environment {
  const wrk = options.tool === 'autocannon' ? undefined : findWrk();
  const cpuList = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown CPU',
    loadAverageBefore: loadavg()[0] ?? 0,
    loadGenerator: wrk !== undefined ? `wrk -t1 (${wrk})` : 'autocannon (1 worker)',
    tmpdir: tmpdir(),
  };
}

/** `result` with the CPU process `pid` spent per request since `before` (left out off Linux). */
function withServerCpu(result: LoadResult, pid: number, before: { main: number | undefined; all: number | undefined }): LoadResult {
  const main = mainThreadCpuSeconds(pid);
  const all = processCpuSeconds(pid);
  if (main === undefined || all === undefined || before.main === undefined || before.all === undefined || result.requests === 0) return result;
  const perRequest = (seconds: number) => (seconds * 1e6) / result.requests;
  return { ...result, serverCpu: { mainThreadUs: perRequest(main - before.main), processUs: perRequest(all - before.all) } };
}

function describeErrors(result: LoadResult): string {
  const e = result.errors;
  const parts = Object.entries({ connect: e.connect, read: e.read, write: e.write, timeout: e.timeout, 'non-2xx': e.non2xx })
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`);
  return parts.join(', ');
}

/** Runs `suite` with `options` and returns its report; the suite's own failure is reported, not thrown. */
export async function runSuite(suite: Suite, options: RunOptions, progress: (message: string) => void): Promise<SuiteReport> {
  const startedAt = new Date().toISOString();
  const env = environment(options);
  const rows: ReportRow[] = [];
  const figures: Figure[] = [];
  const notes: string[] = [];
  const loads: { label: string; result: LoadResult }[] = [];
  const cleanups: (() => void | Promise<void>)[] = [];
  const processes: RunningProcess[] = [];

  const say = (message: string) => progress(`[${suite.name}] ${message}`);

  const measured = async (label: string, spec: LoadSpec, alreadyWarm = false): Promise<{ result: LoadResult; warmup: LoadResult | undefined }> => {
    const full: LoadSpec = {
      durationSeconds: options.durationSeconds,
      ...(options.connections !== undefined ? { connections: options.connections } : {}),
      tool: options.tool,
      ...spec,
    };
    let warmup: LoadResult | undefined;
    if (options.warmupSeconds > 0 && !alreadyWarm) {
      say(`warm-up ${label} (${options.warmupSeconds} s)`);
      warmup = await runLoad({ ...full, durationSeconds: options.warmupSeconds });
    }
    say(`measure ${label} (${full.durationSeconds} s)`);
    const pid = spec.serverPid;
    const cpu0 = pid === undefined ? undefined : { main: mainThreadCpuSeconds(pid), all: processCpuSeconds(pid) };
    const loaded = await runLoad(full);
    const result = pid === undefined || cpu0 === undefined ? loaded : withServerCpu(loaded, pid, cpu0);
    if (loads.length === 0 && result.tool === 'autocannon') {
      notes.push(
        'Measured with autocannon: it saturates below what the hello world serves, which inflates ratios, ' +
          'and it reports latency in whole milliseconds. Install wrk for numbers comparable with other runs.',
      );
    }
    loads.push({ label, result });
    const errors = describeErrors(result);
    if (errors !== '') notes.push(`${label}: ${errors} of ${result.requests.toLocaleString('en-US')} requests failed.`);
    return { result, warmup };
  };

  const track = <P extends RunningProcess>(p: P): P => {
    processes.push(p);
    cleanups.push(async () => {
      const status = await p.stop();
      if (status.code !== 0) notes.push(`${p.name} exited with code ${status.code} (signal ${status.signal}) when stopped.`);
    });
    return p;
  };

  const ctx: SuiteContext = {
    options,
    async startServer(startOptions?: StartServerOptions): Promise<ServerProcess> {
      say('starting server');
      return track(await startServerProcess(startOptions));
    },
    async startBaseline(): Promise<BaselineProcess> {
      say('starting baseline');
      return track(await startBaselineProcess());
    },
    async startFloor(): Promise<FloorProcess> {
      say('starting durable-write floor');
      return track(await startFloorProcess());
    },
    load: async (spec) => (await measured(spec.url, spec)).result,
    async compare(spec: CompareSpec): Promise<Comparison> {
      const baselineLabel = spec.baselineLabel ?? 'hello world (uWebSockets.js)';
      const shape = {
        ...(spec.subject.connections !== undefined ? { connections: spec.subject.connections } : {}),
        ...(spec.subject.durationSeconds !== undefined ? { durationSeconds: spec.subject.durationSeconds } : {}),
      };
      const before = (await measured(`${baselineLabel}, before`, { ...spec.baseline, ...shape })).result;
      const { result: subject, warmup } = await measured(spec.label, spec.subject);
      // Already warm from its first run.
      const after = (await measured(`${baselineLabel}, after`, { ...spec.baseline, ...shape }, true)).result;
      const baselineRps = (before.rps + after.rps) / 2;
      const ratio = subject.rps / baselineRps;
      const row = (label: string, r: LoadResult, role: ReportRow['role'], rowRatio?: number): ReportRow => ({
        label: `${label} (c=${r.connections})`,
        role,
        throughput: r.rps,
        unit: 'req/s',
        p50Ms: r.latencyMs.p50,
        p99Ms: r.latencyMs.p99,
        errors: r.errors.total,
        ...(rowRatio !== undefined ? { ratio: rowRatio } : {}),
      });
      rows.push(row(`${baselineLabel}, before`, before, 'baseline'));
      rows.push(row(spec.label, subject, 'subject', ratio));
      rows.push(row(`${baselineLabel}, after`, after, 'baseline'));
      const drift = Math.abs(before.rps - after.rps) / baselineRps;
      if (drift > 0.1) {
        notes.push(`The baseline moved ${(drift * 100).toFixed(0)}% between its two runs: the machine was busy, so the ratio is shaky.`);
      }
      return { baselines: [before, after], baselineRps, subject, subjectWarmup: warmup, ratio };
    },
    row: (row) => void rows.push(row),
    figure(figure) {
      const at = figures.findIndex((f) => f.key === figure.key);
      if (at >= 0) figures[at] = figure;
      else figures.push(figure);
    },
    note: (text) => void notes.push(text),
    tempDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
    onCleanup: (fn) => void cleanups.push(fn),
    progress: say,
  };

  const cleanUp = async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        notes.push(`Cleanup failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  // Without this, Ctrl-C would leave servers running and data directories behind.
  const interrupted = (signal: NodeJS.Signals) => {
    say(`${signal}: stopping what the suite started`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  let error: string | undefined;
  try {
    await suite.run(ctx);
  } catch (err) {
    error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    say(`failed: ${error}`);
  }
  await cleanUp();
  process.off('SIGINT', interrupted);
  process.off('SIGTERM', interrupted);
  for (const p of processes) {
    const peak = p.peakRssBytes;
    const logs = [...p.logCounts].map(([key, n]) => `${n} × ${key}`).join(', ');
    notes.push(
      `${p.name} (pid ${p.pid}): peak RSS ${peak === undefined ? 'unknown' : `${(peak / MB).toFixed(0)} MB`}; ` +
        (logs === '' ? 'no warnings or errors logged.' : `stderr: ${logs}.`),
    );
  }

  const report: SuiteReport = {
    suite: suite.name,
    description: suite.description,
    startedAt,
    finishedAt: new Date().toISOString(),
    options,
    environment: env,
    rows,
    figures,
    targets: judge(suite.targets, figures),
    notes,
    loads,
    ...(error !== undefined ? { error: error.split('\n')[0]! } : {}),
  };
  return report;
}
