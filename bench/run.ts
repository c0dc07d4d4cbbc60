/**
 * Benchmark runner: `npm run bench -- <suite...> [--duration S] [--warmup S] [--connections N]
 * [--tool auto|wrk|autocannon] [--out DIR]`. Without a suite it lists them.
 *
 * Each suite's report goes to `<out>/<iso-time>-<suite>.json` and `.md`, and the markdown to
 * stdout (progress goes to stderr). Missed targets are reported, not turned into a failing
 * exit code: one run on a shared machine is evidence for a person to weigh, not a verdict.
 * The exit code is non-zero only for bad usage (2) or a suite that crashed (1).
 */
import { fileURLToPath } from 'node:url';
import { runSuite } from './lib/context.js';
import { renderMarkdown, writeReport } from './lib/report.js';
import type { RunOptions, Suite } from './lib/suite.js';
import { SUITES } from './suites/index.js';

const DEFAULT_OUT = fileURLToPath(new URL('../../bench/results/', import.meta.url));

const USAGE = `Usage: npm run bench -- <suite...|all> [options]

Options:
  --duration S       measured seconds per phase (default 10)
  --warmup S         unmeasured warm-up seconds before each phase (default 2; 0 for none)
  --connections N    HTTP connections, or asks in flight for engine suites (default: the suite's)
  --tool T           auto (wrk if installed, else autocannon), wrk, or autocannon (default auto)
  --out DIR          where reports are written (default bench/results)`;

class UsageError extends Error {}

function positiveNumber(raw: string | undefined, flag: string, integer: boolean, allowZero = false): number {
  const n = Number(raw);
  if (raw === undefined || raw === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !allowZero) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} needs a ${integer ? 'whole ' : ''}number${allowZero ? '' : ' above 0'}, got ${raw ?? 'nothing'}`);
  }
  return n;
}

function parseArgs(argv: readonly string[]): { suites: Suite[]; options: RunOptions } {
  const names: string[] = [];
  let durationSeconds = 10;
  let warmupSeconds = 2;
  let connections: number | undefined;
  let tool: RunOptions['tool'] = 'auto';
  let outDir = DEFAULT_OUT;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      names.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    switch (flag) {
      case '--duration':
        durationSeconds = positiveNumber(value, flag, false);
        break;
      case '--warmup':
        warmupSeconds = positiveNumber(value, flag, false, true);
        break;
      case '--connections':
        connections = positiveNumber(value, flag, true);
        break;
      case '--tool':
        if (value !== 'auto' && value !== 'wrk' && value !== 'autocannon') throw new UsageError(`--tool must be auto, wrk or autocannon, got ${value}`);
        tool = value;
        break;
      case '--out':
        if (value === undefined || value === '') throw new UsageError('--out needs a directory');
        outDir = value;
        break;
      default:
        throw new UsageError(`unknown option ${flag}`);
    }
  }
  const suites: Suite[] = [];
  for (const name of names) {
    if (name === 'all') {
      suites.push(...SUITES);
      continue;
    }
    const suite = SUITES.find((s) => s.name === name);
    if (suite === undefined) throw new UsageError(`unknown suite ${name}`);
    suites.push(suite);
  }
  return { suites, options: { durationSeconds, warmupSeconds, connections, tool, outDir } };
}

function listSuites(): string {
  const width = Math.max(...SUITES.map((s) => s.name.length));
  return ['Suites:', ...SUITES.map((s) => `  ${s.name.padEnd(width)}  ${s.description}`)].join('\n');
}

async function main(): Promise<number> {
  let parsed: { suites: Suite[]; options: RunOptions };
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${USAGE}\n\n${listSuites()}\n`);
    return 2;
  }
  if (parsed.suites.length === 0) {
    process.stdout.write(`${USAGE}\n\n${listSuites()}\n`);
    return 0;
  }
  let crashed = false;
  for (const suite of parsed.suites) {
    const report = await runSuite(suite, parsed.options, (message) => process.stderr.write(`${message}\n`));
    const files = writeReport(parsed.options.outDir, report);
    process.stdout.write(`${renderMarkdown(report)}\n`);
    process.stderr.write(`[${suite.name}] wrote ${files.markdown} and ${files.json}\n`);
    if (report.error !== undefined) crashed = true;
  }
  return crashed ? 1 : 0;
}

process.exitCode = await main();
