/**
 * The process's metrics registry (prom-client's `Registry`): every family of `engine/metrics/`
 * registers here when its module loads, and the metrics listener (`http/metrics-listener.ts`)
 * serves it. Families count in plain numbers whether or not anyone scrapes; what costs more
 * than an addition (reading the clock around requests, handlers and commits) runs only once
 * `enableMetrics` was called, which the server does when `METRICS_PORT` is set.
 */
import { createRequire } from 'node:module';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { CountFamily, TimingFamily } from './families.js';

/** The registry the listener serves. */
export const registry = new Registry();

/** Whether timings are taken (set once by `enableMetrics`). Read on hot paths: a plain field. */
export const metricsState = { on: false };

/**
 * One request in this many per route, and one message in this many per actor kind, is timed:
 * a clock read costs about as much as the rest of counting a request, and a histogram of a
 * steady sample shows the same distribution. Counts of requests and messages stay exact.
 */
export const TIMING_SAMPLE = 8;

/** Prefix of every family of this server. */
export const PREFIX = 'comments_';

/** Adds a family to the registry; returns it. */
export function register<F extends CountFamily | TimingFamily>(family: F): F {
  registry.registerMetric(family as unknown as Parameters<Registry['registerMetric']>[0]);
  return family;
}

const sources = new Set<() => void>();

/**
 * Adds a function called at every scrape before families are read: gauges of live objects
 * (active actors, owned shards) are set by these. Returns its removal.
 */
export function addSource(source: () => void): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

let defaults = false;

/**
 * prom-client's default collectors left out: `gc` observes every garbage collection through
 * perf_hooks, which measured 6-7% more CPU per cached comment read (`npm run bench --
 * metrics-overhead`), more than every other metric together. Heap sizes per space, event-loop
 * delay and process CPU stay.
 */
const LEFT_OUT = new Set(['gc']);

/** Turns timings on and adds prom-client's default process metrics (event-loop delay, heap, CPU, handles). */
export function enableMetrics(): void {
  metricsState.on = true;
  if (!defaults) {
    defaults = true;
    const load = createRequire(import.meta.url);
    for (const name of collectDefaultMetrics.metricsList) {
      if (LEFT_OUT.has(name)) continue;
      // Each default collector is a module of its own in prom-client 15 (`lib/metrics/<name>.js`).
      const collector = load(`prom-client/lib/metrics/${name}.js`) as (register: Registry, config: object) => void;
      collector(registry, { eventLoopMonitoringPrecision: 10 });
    }
  }
}

/** The Prometheus text of every family. */
export async function scrape(): Promise<{ contentType: string; text: string }> {
  for (const source of sources) source();
  return { contentType: registry.contentType, text: await registry.metrics() };
}

/** Seconds since `started` (a `performance.now()` mark). */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}
