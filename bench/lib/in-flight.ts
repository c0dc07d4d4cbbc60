/**
 * The load loop of the in-process engine suites: a fixed number of asks kept outstanding for a
 * while, each reply issuing the next, so the actor under test always has a full mailbox.
 */
import { LatencyRecorder } from './latency.js';

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
