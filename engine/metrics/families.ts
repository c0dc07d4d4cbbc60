/**
 * Metric families counted in plain numbers. prom-client's own metrics hash their labels on every
 * `inc` and `observe`; on the request path that costs more than the work measured. Here a caller
 * resolves a labelled child once (per route, per actor kind, per storage) and then adds to its
 * fields; the registry reads the numbers only when scraped, through `get()`, which is the shape
 * prom-client's `Registry` asks of every metric it holds.
 */

type Labels = Record<string, string | number>;

interface Sample {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName?: string;
}

/** What prom-client's registry reads of a metric. */
export interface MetricData {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly values: Sample[];
  readonly aggregator: 'sum';
}

/** The label value children past a family's bound are folded into. */
export const OVERFLOW = 'other';

/** A counter's or a gauge's child: add to `n` (or set it) directly. */
export class Count {
  n = 0;
}

/** A histogram's child: cumulative-free bucket counts, folded into Prometheus' cumulative form at scrape. */
export class Timing {
  readonly bounds: readonly number[];
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/**
 * Children by label values. At most `maxChildren` distinct label sets: beyond that every new
 * set shares one child whose labels all read `other`, so no input can grow a family without end.
 */
abstract class Family<C> {
  readonly #children = new Map<string, { labels: Labels; child: C }>();
  #overflow: C | undefined;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly maxChildren: number,
  ) {}

  protected abstract make(): C;

  /** The child of these label values (in `labelNames` order); resolve it once and keep it. */
  child(...values: string[]): C {
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    const found = this.#children.get(key);
    if (found !== undefined) return found.child;
    if (this.#children.size >= this.maxChildren) {
      if (this.#overflow === undefined) {
        this.#overflow = this.make();
        this.#children.set('\u0001overflow', { labels: this.#labels(this.labelNames.map(() => OVERFLOW)), child: this.#overflow });
      }
      return this.#overflow;
    }
    const child = this.make();
    this.#children.set(key, { labels: this.#labels(values), child });
    return child;
  }

  /** Label sets held now (for tests of the bound). */
  get size(): number {
    return this.#children.size;
  }

  /** Drops every child (a gauge family republishing its label sets from scratch). */
  clear(): void {
    this.#children.clear();
    this.#overflow = undefined;
  }

  protected entries(): IterableIterator<{ labels: Labels; child: C }> {
    return this.#children.values();
  }

  #labels(values: readonly string[]): Labels {
    const labels: Labels = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i] ?? ''));
    return labels;
  }
}

/** A family of counters or gauges. A gauge may set its children when scraped (`collect`). */
export class CountFamily extends Family<Count> {
  readonly type: 'counter' | 'gauge';
  readonly aggregator = 'sum' as const;
  collect: (() => void) | undefined;

  constructor(type: 'counter' | 'gauge', name: string, help: string, labelNames: readonly string[] = [], maxChildren = 1000) {
    super(name, help, labelNames, maxChildren);
    this.type = type;
  }

  protected make(): Count {
    return new Count();
  }

  get(): MetricData {
    this.collect?.();
    const values: Sample[] = [];
    // Counters never counted are left out (children are made ahead of use, for every route):
    // a scrape then costs what was used, not the size of the route table.
    const skipZero = this.type === 'counter';
    for (const { labels, child } of this.entries()) if (!skipZero || child.n !== 0) values.push({ labels, value: child.n });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const { child } of this.entries()) child.n = 0;
  }
}

/** A family of histograms, all with the same bucket bounds. */
export class TimingFamily extends Family<Timing> {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  readonly bounds: readonly number[];

  constructor(name: string, help: string, bounds: readonly number[], labelNames: readonly string[] = [], maxChildren = 1000) {
    super(name, help, labelNames, maxChildren);
    this.bounds = bounds;
  }

  protected make(): Timing {
    return new Timing(this.bounds);
  }

  get(): MetricData {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, child } of this.entries()) {
      if (child.count === 0) continue;
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += child.counts[i]!;
        values.push({ labels: { ...labels, le: this.bounds[i]! }, value: cumulative, metricName: bucket });
      }
      values.push({ labels: { ...labels, le: '+Inf' }, value: child.count, metricName: bucket });
      values.push({ labels, value: child.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: child.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const { child } of this.entries()) {
      child.counts.fill(0);
      child.sum = 0;
      child.count = 0;
    }
  }
}

/** Bucket bounds in seconds for request and handler latency: 0.5 ms to 10 s. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Bucket bounds in seconds for background work (renders, aggregations, forwarded asks): 1 ms to 5 min. */
export const WORK_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300] as const;
/** Bucket bounds for counts of things in one batch (writes per commit). */
export const SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000] as const;
