/**
 * Benchmark reports: one JSON file for machines and one markdown file for people, per suite
 * run. The markdown is also what the runner prints.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult } from './load.js';
import type { Figure, ReportRow, RunOptions, Target } from './suite.js';

/** Where and on what the numbers were taken; they mean little without it. */
export interface Environment {
  readonly node: string;
  readonly platform: string;
  readonly cpus: number;
  readonly cpuModel: string;
  /** 1-minute load average just before the suite started: a busy machine skews everything. */
  readonly loadAverageBefore: number;
  readonly loadGenerator: string;
  readonly tmpdir: string;
}

/** A target with its verdict. */
export interface JudgedTarget extends Target {
  /** Undefined when the suite never recorded the figure. */
  readonly actual: number | undefined;
  readonly met: boolean;
}

/** Everything one suite run produced. */
export interface SuiteReport {
  readonly suite: string;
  readonly description: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly options: RunOptions;
  readonly environment: Environment;
  readonly rows: readonly ReportRow[];
  readonly figures: readonly Figure[];
  readonly targets: readonly JudgedTarget[];
  readonly notes: readonly string[];
  /** Every measured load run, in order, with the label it was measured under. */
  readonly loads: readonly { readonly label: string; readonly result: LoadResult }[];
  /** Set when the suite threw: its figures are then incomplete. */
  readonly error?: string;
}

/** Compares each target with its figure. */
export function judge(targets: readonly Target[], figures: readonly Figure[]): JudgedTarget[] {
  return targets.map((target) => {
    const actual = figures.find((f) => f.key === target.figure)?.value;
    const met = actual !== undefined && (target.op === '>=' ? actual >= target.value : actual <= target.value);
    return { ...target, actual, met };
  });
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A number for a table: grouped thousands for large values and counts, two decimals for small fractions. */
export function formatNumber(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return String(value);
  const places = digits ?? (Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : 2);
  return new Intl.NumberFormat('en-US', { minimumFractionDigits: places, maximumFractionDigits: places }).format(value);
}

function withUnit(value: number, unit: string, digits?: number): string {
  const n = formatNumber(value, digits);
  if (unit === '') return n;
  return unit === '×' ? `${n}×` : `${n} ${unit}`;
}

function cell(value: number | undefined, render: (v: number) => string): string {
  return value === undefined ? '–' : render(value);
}

/** The markdown summary. */
export function renderMarkdown(report: SuiteReport): string {
  const o = report.options;
  const e = report.environment;
  const out: string[] = [
    `# Benchmark \`${report.suite}\` — ${report.startedAt}`,
    '',
    report.description,
    '',
    `Duration ${o.durationSeconds} s per phase after ${o.warmupSeconds} s warm-up` +
      (o.connections === undefined ? ', suite-default concurrency' : `, concurrency ${o.connections}`) +
      (report.loads.length > 0 ? `; ${e.loadGenerator}` : '') +
      `; Node ${e.node} on ${e.platform}, ${e.cpus} × ${e.cpuModel}; ` +
      `load average before ${e.loadAverageBefore.toFixed(2)}; temp dirs under ${e.tmpdir}.`,
    '',
  ];
  if (report.error !== undefined) out.push(`**The suite failed:** ${report.error}`, '');
  if (report.rows.length > 0) {
    out.push('| measurement | role | throughput | p50 | p99 | errors | ratio to baseline |', '|---|---|--:|--:|--:|--:|--:|');
    for (const r of report.rows) {
      out.push(
        `| ${r.label} | ${r.role} | ${withUnit(r.throughput, r.unit)} | ${cell(r.p50Ms, (v) => `${v.toFixed(2)} ms`)} | ` +
          `${cell(r.p99Ms, (v) => `${v.toFixed(2)} ms`)} | ${cell(r.errors, (v) => grouped.format(v))} | ` +
          `${cell(r.ratio, (v) => `${v.toFixed(3)}`)} |`,
      );
    }
    out.push('');
  }
  if (report.figures.length > 0) {
    out.push('## Figures', '', '| figure | value |', '|---|--:|');
    for (const f of report.figures) out.push(`| ${f.label} | ${withUnit(f.value, f.unit, f.digits)} |`);
    out.push('');
  }
  if (report.targets.length > 0) {
    out.push('## Targets', '', '| target | wanted | measured | verdict |', '|---|--:|--:|---|');
    for (const t of report.targets) {
      const unit = report.figures.find((f) => f.key === t.figure)?.unit ?? '';
      const wanted = `${t.op === '>=' ? '≥' : '≤'} ${withUnit(t.value, unit)}`;
      const actual = t.actual === undefined ? 'not measured' : withUnit(t.actual, unit);
      out.push(`| ${t.description} | ${wanted} | ${actual} | ${t.met ? 'met' : '**missed**'} |`);
    }
    out.push('', 'Targets are judged on one noisy run; compare ratios across runs before concluding anything.', '');
  }
  if (report.notes.length > 0) {
    out.push('## Notes', '');
    for (const n of report.notes) out.push(`- ${n}`);
    out.push('');
  }
  return out.join('\n');
}

/** Writes `<iso-time>-<suite>.json` and `.md` into `dir`; returns the two paths. */
export function writeReport(dir: string, report: SuiteReport): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  // Colons are not allowed in file names everywhere; the time stays sortable without them.
  const stamp = report.startedAt.replace(/\.\d+Z$/, 'Z').replaceAll(':', '-');
  const base = join(dir, `${stamp}-${report.suite}`);
  const json = `${base}.json`;
  const markdown = `${base}.md`;
  writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(markdown, renderMarkdown(report));
  return { json, markdown };
}
