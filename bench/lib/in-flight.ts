/**
 * The load loop of the in-process engine suites: a fixed number of asks kept outstanding for a
 * while, each reply issuing the next, so the actor under test always has a full mailbox.
 */
import { LatencyRecorder } from './latency.js';
import type { ReportRow } from './suite.js';

/** What `keepInFlight` measured. */
export interface InFlightResult {
  /** Replies that arrived inside the window, and counted. */
  readonly done: number;
  /** Every successful reply, those after the deadline included. */
  readonly replies: number;
  /** The index the next ask would have had. */
  readonly issued: number;
  readonly windowSeconds: number;
  readonly latency: LatencyRecorder;
  /** Failed asks by error code (or message). */
  readonly errors: Map<string, number>;
}

/**
 * Keeps `inFlight` calls of `ask(i)` outstanding for `seconds`, `i` counting up from `first`.
 * Only replies inside the window count; asks still out at the deadline are awaited.
 */
export function keepInFlight(ask: (i: number) => Promise<unknown>, inFlight: number, seconds: number, first = 0): Promise<InFlightResult> {
  const latency = new LatencyRecorder();
  const errors = new Map<string, number>();
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  let replies = 0;
  let next = first;
  let outstanding = 0;
  return new Promise((resolve) => {
    const issue = (): void => {
      outstanding++;
      const t0 = process.hrtime.bigint();
      ask(next++).then(
        () => {
          replies++;
          if (performance.now() <= deadline) {
            done++;
            latency.recordSince(t0);
          }
          settle();
        },
        (err: unknown) => {
          const code = (err as { code?: unknown }).code;
          const key = typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
          errors.set(key, (errors.get(key) ?? 0) + 1);
          settle();
        },
      );
    };
    const settle = (): void => {
      outstanding--;
      if (performance.now() < deadline) issue();
      else if (outstanding === 0) resolve({ done, replies, issued: next, windowSeconds: seconds, latency, errors });
    };
    for (let i = 0; i < inFlight; i++) issue();
  });
}

/** A measured phase of an in-process suite: the load loop's, or a baseline's. */
export interface MeasuredPhase {
  /** Operations completed inside the measured window. */
  readonly done: number;
  readonly windowSeconds: number;
  readonly latency: LatencyRecorder;
  readonly errors: Map<string, number>;
}

/** The report row of a measured phase. */
export function phaseRow(label: string, role: ReportRow['role'], unit: string, phase: MeasuredPhase, ratio?: number): ReportRow {
  return {
    label,
    role,
    throughput: phase.done / phase.windowSeconds,
    unit,
    p50Ms: phase.latency.percentileMs(50),
    p99Ms: phase.latency.percentileMs(99),
    errors: [...phase.errors.values()].reduce((a, b) => a + b, 0),
    ...(ratio !== undefined ? { ratio } : {}),
  };
}
