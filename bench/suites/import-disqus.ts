/**
 * Importing a generated Disqus export on LMDB (docs/import-export.md): `IMPORT_DISQUS_COMMENTS`
 * posts (default 1,000,000) over `IMPORT_DISQUS_THREADS` threads (default 10,000), from 5,000
 * authors with an email and anonymous guests, every fourth post a reply. The import runs as
 * operators run it (`node dist/cli.js import`, a process of its own); reported: comments per
 * second of the import and of a dry run of the same file (the baseline: reading, parsing and
 * looking ids up, no writing), the import's peak resident memory (LMDB's mapped pages
 * included) and peak JavaScript heap (from its progress lines).
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generateDisqus } from '../../test/integration/import-fixtures.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const COMMENTS = Number(process.env['IMPORT_DISQUS_COMMENTS'] ?? 1_000_000);
const THREADS = Number(process.env['IMPORT_DISQUS_THREADS'] ?? 10_000);
const MB = 1024 * 1024;
const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));

/** Resident memory of a process (`VmRSS`), and the part not backed by files (`RssAnon`: not LMDB's mapped pages). */
function memoryOf(pid: number): { rss: number; anon: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon') };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

interface Run {
  seconds: number;
  peakRss: number;
  peakAnon: number;
  peakHeapMb: number;
  report: { comments: { total: number; imported: number; alreadyPresent: number; skipped: number } };
}

/** Runs the command line; samples its memory while it runs. */
function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakRss = 0;
    let peakAnon = 0;
    let peakHeapMb = 0;
    const sampler = setInterval(() => {
      const m = memoryOf(child.pid!);
      peakRss = Math.max(peakRss, m.rss);
      peakAnon = Math.max(peakAnon, m.anon);
    }, 100);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      for (const m of d.toString().matchAll(/heap (\d+) MB/g)) peakHeapMb = Math.max(peakHeapMb, Number(m[1]));
    });
    child.once('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`cli ${args[0]} exited ${code}: ${stderr.slice(-2000)}`));
      resolve({ seconds: (performance.now() - started) / 1000, peakRss, peakAnon, peakHeapMb, report: JSON.parse(stdout) as Run['report'] });
    });
  });
}

async function tenant(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'tenant', 'create', '--name', 'Imported'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve((JSON.parse(out) as { tenantId: string }).tenantId) : reject(new Error('tenant create failed'))));
  });
}

export const importDisqus: Suite = {
  name: 'import-disqus',
  description: `Importing a generated Disqus export of ${COMMENTS.toLocaleString('en-US')} comments over ${THREADS.toLocaleString('en-US')} threads on LMDB with the command line: comments/s against a dry run of the same file, peak memory.`,
  targets: [
    { figure: 'peakHeapMb', op: '<=', value: 512, description: 'memory bounded by a constant, not by the file' },
    { figure: 'peakAnonMb', op: '<=', value: 1024, description: 'private memory bounded too' },
    { figure: 'importSeconds', op: '<=', value: 600, description: 'a million comments within minutes' },
  ],
  async run(ctx: SuiteContext) {
    const dir = ctx.tempDir('import-disqus-');
    const file = join(dir, 'export.xml');
    ctx.progress(`generating ${COMMENTS.toLocaleString('en-US')} posts`);
    await generateDisqus(file, THREADS, COMMENTS);
    const env = { DATA_DIR: join(dir, 'data'), MONGODB_URI: '', LOG_LEVEL: 'error' };
    const tenantId = await tenant(env);
    ctx.progress('dry run (baseline: read, parse, look up)');
    const dry = await runCli(['import', '--tenant', tenantId, '--format', 'disqus', file, '--dry-run'], env);
    ctx.row({ label: 'dry run: read, parse, look ids up (baseline)', role: 'baseline', throughput: COMMENTS / dry.seconds, unit: 'comments/s' });
    ctx.progress('import');
    const run = await runCli(['import', '--tenant', tenantId, '--format', 'disqus', file], env);
    if (run.report.comments.imported !== COMMENTS) throw new Error(`imported ${run.report.comments.imported} of ${COMMENTS}`);
    ctx.row({ label: `import: ${COMMENTS.toLocaleString('en-US')} comments written through the page actors`, role: 'subject', throughput: COMMENTS / run.seconds, unit: 'comments/s', ratio: dry.seconds / run.seconds });
    ctx.figure({ key: 'importSeconds', label: 'import wall time', value: run.seconds, unit: 's', digits: 1 });
    ctx.figure({ key: 'commentsPerSecond', label: 'import comments/s', value: COMMENTS / run.seconds, unit: 'comments/s' });
    ctx.figure({ key: 'peakRssMb', label: 'import peak RSS (LMDB mapped pages included)', value: run.peakRss / MB, unit: 'MB' });
    ctx.figure({ key: 'peakAnonMb', label: 'import peak anonymous memory (RssAnon: RSS without mapped files)', value: run.peakAnon / MB, unit: 'MB' });
    ctx.figure({ key: 'peakHeapMb', label: 'import peak JS heap (progress lines)', value: run.peakHeapMb, unit: 'MB' });
    ctx.figure({ key: 'fileMb', label: 'export file size', value: statSync(file).size / MB, unit: 'MB' });
    ctx.note('One process, durable LMDB commits (no noSync). The dry run reads the same file and looks every id up in storage without writing; the ratio is dry-run time over import time.');
    ctx.note('Peak heap is the largest `heap` figure the import printed on its progress lines (every two seconds); RSS also counts the LMDB file pages the kernel maps into the process.');
  },
};
