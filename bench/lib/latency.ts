/** Latency recording for in-process measurements (the HTTP ones come from the load generator). */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/** Records durations with nanosecond resolution and reports them in milliseconds. */
export class LatencyRecorder {
  readonly #histogram: RecordableHistogram = createHistogram();

  /** Records the time since `startNs` (a `process.hrtime.bigint()` reading). */
  recordSince(startNs: bigint): void {
    const elapsed = process.hrtime.bigint() - startNs;
    // The histogram refuses values below 1.
    this.#histogram.record(elapsed > 0n ? elapsed : 1n);
  }

  get count(): number {
    return this.#histogram.count;
  }

  /** The `p`th percentile (0–100) in milliseconds; 0 when nothing was recorded. */
  percentileMs(p: number): number {
    return this.#histogram.count === 0 ? 0 : this.#histogram.percentile(p) / 1e6;
  }
}
