/**
 * Email: template render throughput through the render pool, and what `sendEmails=true` adds
 * to comment creation.
 *
 * 1. Renders of a typical template (the built-in `commenter-verify-post`: layout, a quoted
 *    comment, links, translations) through the pool (a child render host, its Piscina
 *    workers, a fresh vm context per render), 16 in flight, against the same render done
 *    directly on the benchmark's main thread one at a time (the sandbox without the pool).
 * 2. `POST /api/v1/comments` by new commenters (a new email each time, so every one is welcomed)
 *    with `sendEmails=true`, against the same requests without it, on one server: the outbox
 *    write in the request, then rendering and delivery in the background (to `.eml` files, the
 *    default transport).
 */
import { renderInput } from '../../actors/email/template-model.js';
import { definitionOf } from '../../email/definitions.js';
import { RenderPool } from '../../email/render-pool.js';
import { render } from '../../email/sandbox.js';
import { keepInFlight, type MeasuredPhase, phaseRow } from '../lib/in-flight.js';
import { LatencyRecorder } from '../lib/latency.js';
import type { LoadSpec } from '../lib/load.js';
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

async function sendEmailsCost(ctx: SuiteContext): Promise<void> {
  const server = await ctx.startServer();
  const headers = { ...server.authHeaders, 'content-type': 'application/json' };
  const probe = await fetch(`${server.url}/api/v1/comments?sendEmails=true`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ commenterName: 'Probe', commenterEmail: 'probe@example.org', comment: 'probe', url: 'https://example.com/p', urlId: 'probe', locale: 'en_us' }),
  });
  if (probe.status !== 200) throw new Error(`POST /api/v1/comments?sendEmails=true answered ${probe.status} ${await probe.text()}`);
  const spec = (sendEmails: boolean): LoadSpec => ({ url: `${server.url}/api/v1/comments`, method: 'POST', headers, lua: commentLua(sendEmails), connections: 32, serverPid: server.pid });
  const cmp = await ctx.compare({
    label: 'POST /api/v1/comments?sendEmails=true (new commenter each time)',
    subject: spec(true),
    baseline: spec(false),
    baselineLabel: 'POST /api/v1/comments without sendEmails (new commenter each time)',
  });
  const baseCpu = cmp.baselines.map((b) => b.serverCpu?.mainThreadUs).filter((v): v is number => v !== undefined);
  const subjectCpu = cmp.subject.serverCpu?.mainThreadUs;
  ctx.figure({ key: 'sendEmailsRatio', label: 'comment creation throughput with sendEmails ÷ without', value: cmp.ratio, unit: '×', digits: 3 });
  ctx.figure({ key: 'sendEmailsP99Ms', label: 'comment creation p99 with sendEmails', value: cmp.subject.latencyMs.p99, unit: 'ms', digits: 1 });
  ctx.figure({ key: 'plainP99Ms', label: 'comment creation p99 without', value: Math.max(...cmp.baselines.map((b) => b.latencyMs.p99)), unit: 'ms', digits: 1 });
  if (subjectCpu !== undefined && baseCpu.length > 0) {
    const base = baseCpu.reduce((a, b) => a + b, 0) / baseCpu.length;
    ctx.figure({ key: 'plainMainCpuUs', label: 'server main-thread CPU per comment without sendEmails', value: base, unit: 'µs', digits: 1 });
    ctx.figure({ key: 'sendEmailsMainCpuUs', label: 'server main-thread CPU per comment with sendEmails (rendering is in the render host, not counted)', value: subjectCpu, unit: 'µs', digits: 1 });
  }
  ctx.figure({ key: 'failedRequests', label: 'failed requests with sendEmails', value: cmp.subject.errors.total, unit: '' });
  ctx.note('The server writes each email as an .eml file (no SMTP_URL); the render host is a child process whose CPU is not in the server figures.');
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
