/**
 * Email: template render throughput through the render pool, and what `sendEmails=true` adds
 * to comment creation.
 *
 * 1. Renders of a typical template (the built-in `commenter-verify-post`: layout, a quoted
 *    comment, links, translations) through the pool (a child render host, its Piscina
 *    workers, a fresh vm context per render), 16 in flight, against the same render done
 *    directly on the benchmark's main thread one at a time (the sandbox without the pool).
 * 2. `POST /api/v1/comments` by new commenters (a new email each time, so every one is welcomed)
 *    with `sendEmails=true`, against the same requests without it before and after, on one
 *    server: the outbox write in the request, then rendering and delivery in the background
 *    (to `.eml` files, the default transport). The second baseline waits until the outbox has
 *    drained; the drain itself is measured (emails per second, CPU per email).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { renderInput } from '../../actors/email/template-model.js';
import { definitionOf } from '../../email/definitions.js';
import { RenderPool } from '../../email/render-pool.js';
import { render } from '../../email/sandbox.js';
import { keepInFlight, type MeasuredPhase, phaseRow } from '../lib/in-flight.js';
import { LatencyRecorder } from '../lib/latency.js';
import type { LoadResult, LoadSpec } from '../lib/load.js';
import { loadRow, mainThreadCpuSeconds, meanMainCpuUs } from '../lib/cpu.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const IN_FLIGHT = 16;
const PAGES = 100;

function directRenders(job: Parameters<typeof render>[0], seconds: number): MeasuredPhase {
  const latency = new LatencyRecorder();
  const errors = new Map<string, number>();
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  while (performance.now() < deadline) {
    const t0 = process.hrtime.bigint();
    const out = render(job);
    if (out.ok) {
      done++;
      latency.recordSince(t0);
    } else errors.set(out.failure, (errors.get(out.failure) ?? 0) + 1);
  }
  return { done, windowSeconds: seconds, latency, errors };
}

async function renderThroughput(ctx: SuiteContext): Promise<void> {
  const definition = definitionOf('commenter-verify-post')!;
  const input = renderInput(definition, null, definition.defaultTestData, 'en_us');
  const job = { ...input, data: JSON.stringify(input.data), timeoutMs: 500 };
  const seconds = ctx.options.durationSeconds;
  ctx.progress('direct renders (baseline)');
  directRenders(job, Math.min(2, ctx.options.warmupSeconds));
  const before = directRenders(job, seconds);
  const pool = new RenderPool({ threads: 2, memoryMb: 64, perTenant: IN_FLIGHT * 2 });
  try {
    ctx.progress('renders through the pool');
    await keepInFlight(() => pool.renderOrRefuse({ tenantId: 'bench', ...input }), IN_FLIGHT, ctx.options.warmupSeconds);
    const pooled = await keepInFlight(() => pool.renderOrRefuse({ tenantId: 'bench', ...input }), IN_FLIGHT, seconds);
    const after = directRenders(job, seconds);
    const baselineRps = (before.done + after.done) / (before.windowSeconds + after.windowSeconds);
    const rps = pooled.done / pooled.windowSeconds;
    ctx.row(phaseRow('direct render on the main thread (before)', 'baseline', 'renders/s', before));
    ctx.row(phaseRow(`render pool, ${IN_FLIGHT} in flight`, 'subject', 'renders/s', pooled, rps / baselineRps));
    ctx.row(phaseRow('direct render on the main thread (after)', 'baseline', 'renders/s', after));
    ctx.figure({ key: 'rendersPerSecond', label: 'renders per second through the pool', value: rps, unit: '/s', digits: 0 });
    ctx.figure({ key: 'renderP99Ms', label: 'render p99 through the pool (queueing included)', value: pooled.latency.percentileMs(99), unit: 'ms', digits: 2 });
    ctx.figure({ key: 'renderRatio', label: 'pool throughput ÷ one direct render at a time', value: rps / baselineRps, unit: '×', digits: 2 });
    ctx.figure({ key: 'renderErrors', label: 'failed renders', value: [...pooled.errors.values()].reduce((a, b) => a + b, 0), unit: '' });
  } finally {
    await pool.close();
  }
}

function commentLua(sendEmails: boolean): string {
  return `
math.randomseed(os.time() + math.floor(os.clock() * 1e6))
local tag = tostring(math.random(1, 1000000000))
local i = 0
request = function()
  i = i + 1
  local name = "c" .. tag .. "-" .. i
  local page = "bench-email-" .. (i % ${PAGES})
  local body = '{"commenterName":"' .. name .. '","commenterEmail":"' .. name .. '@example.org","comment":"Hello from ' .. name .. '","url":"https://example.com/' .. page .. '","urlId":"' .. page .. '","locale":"en_us"}'
  return wrk.format("POST", "/api/v1/comments?sendEmails=${sendEmails}", nil, body)
end
`;
}

/** `.eml` files the server has written so far. */
function emailsWritten(dataDir: string): number {
  const dir = join(dataDir, 'outbox-mail');
  return existsSync(dir) ? readdirSync(dir).length : 0;
}

/** Waits until the server has written every email it had waiting (the count stops growing for 2 s). */
async function drained(dataDir: string): Promise<void> {
  let last = -1;
  let still = 0;
  for (const deadline = Date.now() + 300_000; still < 8 && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 250));
    const now = emailsWritten(dataDir);
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

async function sendEmailsCost(ctx: SuiteContext): Promise<void> {
  const dataDir = ctx.tempDir('bench-email-');
  const server = await ctx.startServer({ env: { DATA_DIR: dataDir } });
  const headers = { ...server.authHeaders, 'content-type': 'application/json' };
  const probe = await fetch(`${server.url}/api/v1/comments?sendEmails=true`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ commenterName: 'Probe', commenterEmail: 'probe@example.org', comment: 'probe', url: 'https://example.com/p', urlId: 'probe', locale: 'en_us' }),
  });
  if (probe.status !== 200) throw new Error(`POST /api/v1/comments?sendEmails=true answered ${probe.status} ${await probe.text()}`);
  const spec = (sendEmails: boolean): LoadSpec => ({ url: `${server.url}/api/v1/comments`, method: 'POST', headers, lua: commentLua(sendEmails), connections: 32, serverPid: server.pid });

  ctx.progress('comments without sendEmails');
  const before = await ctx.load(spec(false));
  ctx.progress('comments with sendEmails=true');
  const subject = await ctx.load(spec(true));
  // The emails of the run are sent in the background: measure that apart, and keep it out of
  // the second baseline.
  const sentDuringLoad = emailsWritten(dataDir);
  const cpu0 = mainThreadCpuSeconds(server.pid);
  const t0 = performance.now();
  ctx.progress('waiting for the outbox to drain');
  await drained(dataDir);
  const drainSeconds = (performance.now() - t0) / 1000 - 2;
  const drainCpu = (mainThreadCpuSeconds(server.pid) ?? 0) - (cpu0 ?? 0);
  const sentWhileDraining = emailsWritten(dataDir) - sentDuringLoad;
  ctx.progress('comments without sendEmails, again');
  const after = await ctx.load(spec(false));

  const baselineRps = (before.rps + after.rps) / 2;
  const row = (label: string, role: 'baseline' | 'subject', r: LoadResult, ratio?: number) => ctx.row(loadRow(label, role, r, ratio));
  row('POST /api/v1/comments, new commenter each time (before)', 'baseline', before);
  row('POST /api/v1/comments?sendEmails=true, new commenter each time', 'subject', subject, subject.rps / baselineRps);
  row('POST /api/v1/comments, new commenter each time (after the outbox drained)', 'baseline', after);
  ctx.figure({ key: 'sendEmailsRatio', label: 'comment creation throughput with sendEmails ÷ without', value: subject.rps / baselineRps, unit: '×', digits: 3 });
  ctx.figure({ key: 'sendEmailsP99Ms', label: 'comment creation p99 with sendEmails', value: subject.latencyMs.p99, unit: 'ms', digits: 1 });
  ctx.figure({ key: 'plainP99Ms', label: 'comment creation p99 without (worse of the two)', value: Math.max(before.latencyMs.p99, after.latencyMs.p99), unit: 'ms', digits: 1 });
  const plainCpu = meanMainCpuUs([before, after]);
  if (plainCpu !== undefined && subject.serverCpu !== undefined) {
    ctx.figure({ key: 'plainMainCpuUs', label: 'server main-thread CPU per comment without sendEmails', value: plainCpu, unit: 'µs', digits: 1 });
    ctx.figure({ key: 'sendEmailsMainCpuUs', label: 'server main-thread CPU per comment with sendEmails (sending under way included)', value: subject.serverCpu.mainThreadUs, unit: 'µs', digits: 1 });
  }
  if (sentWhileDraining > 0 && cpu0 !== undefined) {
    ctx.figure({ key: 'drainMainCpuUs', label: 'server main-thread CPU per email sent in the background (after the load)', value: (drainCpu * 1e6) / sentWhileDraining, unit: 'µs', digits: 1 });
    ctx.figure({ key: 'drainPerSecond', label: 'emails sent per second in the background, one tenant', value: sentWhileDraining / Math.max(drainSeconds, 0.001), unit: '/s', digits: 0 });
  }
  ctx.figure({ key: 'failedRequests', label: 'failed requests with sendEmails', value: subject.errors.total, unit: '' });
  ctx.note(`${sentDuringLoad} emails were written during the loads and ${sentWhileDraining} after them; the server writes each as an .eml file (no SMTP_URL). Rendering and building messages happen in the render host, a child process whose CPU is not in these figures.`);
}

/** See the module comment. */
export const email: Suite = {
  name: 'email',
  description: 'Template renders per second through the render pool (vs. one direct render at a time), and comment creation with sendEmails=true vs. without.',
  targets: [
    { figure: 'renderErrors', op: '<=', value: 0, description: 'no failed render' },
    { figure: 'failedRequests', op: '<=', value: 0, description: 'no failed comment' },
  ],
  async run(ctx) {
    await renderThroughput(ctx);
    await sendEmailsCost(ctx);
  },
};
