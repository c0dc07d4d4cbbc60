/**
 * The contract between the benchmark runner and its suites. A suite is a module exporting a
 * `Suite`; it is listed in `bench/suites/index.ts` and run with `npm run bench -- <name>`.
 *
 * Numbers on a shared machine are noisy, so a suite reports throughput as a ratio to a
 * baseline measured in the same run (`ctx.compare` does the baseline–subject–baseline dance),
 * and its targets are judged in the report, never by the exit code.
 */
import type { LoadResult, LoadSpec } from './load.js';
import type { BaselineProcess, FloorProcess, ServerProcess, StartServerOptions } from './processes.js';

/** Options from the command line, shared by every suite of one run. */
export interface RunOptions {
  /** Length of each measured phase, in seconds. */
  readonly durationSeconds: number;
  /** Length of the unmeasured warm-up before each measured phase, in seconds (0: none). */
  readonly warmupSeconds: number;
  /**
   * Concurrency: HTTP connections for load suites, requests in flight for engine suites.
   * Undefined when not given on the command line, so each suite applies its own default.
   */
  readonly connections: number | undefined;
  /** Load generator: `auto` uses wrk when it is on PATH, else autocannon. */
  readonly tool: 'auto' | 'wrk' | 'autocannon';
  /** Directory the `.json` and `.md` reports are written to. */
  readonly outDir: string;
}

/**
 * A figure a target is judged against. `key` is what targets refer to; `label` and `unit` are
 * for the report.
 */
export interface Figure {
  readonly key: string;
  readonly label: string;
  readonly value: number;
  /** e.g. `req/s`, `ms`, `×` (a ratio), `MB`; empty for plain counts. */
  readonly unit: string;
  /** Decimal places shown in the report (default: 0 for whole numbers and values ≥ 100, else 2). */
  readonly digits?: number;
}

/** A declared goal: `figure <op> value`. Judged met or missed in the report, nothing more. */
export interface Target {
  /** The `key` of a figure the suite records. */
  readonly figure: string;
  readonly op: '>=' | '<=';
  readonly value: number;
  /** Why this number, in a few words, for the report. */
  readonly description: string;
}

/** One line of the report's main table: a measured throughput with its latency. */
export interface ReportRow {
  readonly label: string;
  /** Baseline rows are what ratios divide by; reference rows are other bounds, for context. */
  readonly role: 'baseline' | 'subject' | 'reference';
  readonly throughput: number;
  /** e.g. `req/s`, `mutations/s`, `puts/s`. */
  readonly unit: string;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  /** Failed operations: socket errors, timeouts, non-2xx answers, rejected asks. */
  readonly errors?: number;
  /** Throughput divided by the mean baseline throughput of the same run. */
  readonly ratio?: number;
}

/** What `compare` measures: the subject, and the baseline it is divided by. */
export interface CompareSpec {
  /** Row label of the subject, e.g. `GET /api/v1/me`. */
  readonly label: string;
  readonly subject: LoadSpec;
  /** Gets the subject's connections and duration, so both sides are loaded alike. */
  readonly baseline: LoadSpec;
  /** Row label of the baseline (default `hello world (uWebSockets.js)`). */
  readonly baselineLabel?: string;
}

/** The outcome of `compare`. */
export interface Comparison {
  /** Baseline before and after the subject, in that order. */
  readonly baselines: readonly LoadResult[];
  /** Mean requests per second of the baseline runs. */
  readonly baselineRps: number;
  readonly subject: LoadResult;
  /** The subject's unmeasured warm-up run, when there was one (it still hit the server). */
  readonly subjectWarmup: LoadResult | undefined;
  /** `subject.rps / baselineRps`. */
  readonly ratio: number;
}

/** What a running suite gets from the runner. Everything it starts is stopped for it. */
export interface SuiteContext {
  readonly options: RunOptions;
  /** Starts `dist/main.js` on a fresh data directory and port; stopped and deleted after the suite. */
  startServer(options?: StartServerOptions): Promise<ServerProcess>;
  /** Starts the bare uWebSockets.js hello world; stopped after the suite. */
  startBaseline(): Promise<BaselineProcess>;
  /** Starts the durable-write floor (bare uWebSockets.js, one LMDB document per request); stopped after the suite. */
  startFloor(): Promise<FloorProcess>;
  /** Drives one URL (warm-up, then the measured phase); the result is kept in the JSON report only. */
  load(spec: LoadSpec): Promise<LoadResult>;
  /**
   * Measures baseline, subject, baseline again, back to back (each warmed up first, the second
   * baseline excepted), and records the three rows with the subject's ratio to the mean baseline.
   */
  compare(spec: CompareSpec): Promise<Comparison>;
  /** Adds a line to the main table. */
  row(row: ReportRow): void;
  /** Records a figure (replacing one with the same key); targets are judged against figures. */
  figure(figure: Figure): void;
  /** Adds a line to the report's notes: anything a reader should know to trust the numbers. */
  note(text: string): void;
  /** Creates a fresh temporary directory, deleted after the suite. */
  tempDir(prefix: string): string;
  /** Runs `fn` after the suite, last registered first, even if the suite threw. */
  onCleanup(fn: () => void | Promise<void>): void;
  /** Progress message on stderr (stdout carries the report). */
  progress(message: string): void;
}

/** A benchmark suite. */
export interface Suite {
  /** Kebab-case name used on the command line and in report file names. */
  readonly name: string;
  /** One or two sentences: what is measured against what. */
  readonly description: string;
  readonly targets: readonly Target[];
  run(ctx: SuiteContext): Promise<void>;
}
