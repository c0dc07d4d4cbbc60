/**
 * `GET /api/v1/me` with the demo tenant's key against the hello-world baseline. The cheapest
 * authenticated request: it checks the key, asks the tenant actor, and charges a credit
 * durably before answering, so it is the floor under every authenticated route.
 */
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const PATH = '/api/v1/me';

async function getJson(server: ServerProcess, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.url}${path}`, { headers: server.authHeaders });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Credits charged today, from the tenant's own usage report. */
async function creditsUsedToday(server: ServerProcess): Promise<number | undefined> {
  const now = new Date();
  const query = `yearNumber=${now.getUTCFullYear()}&monthNumber=${now.getUTCMonth() + 1}&dayNumber=${now.getUTCDate()}`;
  const { status, body } = await getJson(server, `/api/v1/tenant-daily-usage?${query}`);
  if (status !== 200) return undefined;
  const days = (body as { tenantDailyUsages?: { apiCreditsUsed?: unknown }[] }).tenantDailyUsages ?? [];
  return days.reduce((sum, d) => sum + (typeof d.apiCreditsUsed === 'number' ? d.apiCreditsUsed : 0), 0);
}

async function run(ctx: SuiteContext): Promise<void> {
  const baseline = await ctx.startBaseline();
  const server = await ctx.startServer();

  // A benchmark of error answers would look splendid and mean nothing: check the route first.
  const probe = await getJson(server, PATH);
  if (probe.status !== 200 || (probe.body as { status?: unknown }).status !== 'success') {
    throw new Error(`GET ${PATH} answered ${probe.status} ${JSON.stringify(probe.body)}`);
  }
  const creditsBefore = await creditsUsedToday(server);

  const cmp = await ctx.compare({
    label: `GET ${PATH}`,
    subject: { url: `${server.url}${PATH}`, headers: server.authHeaders },
    baseline: { url: `${baseline.url}${PATH}` },
  });
  const s = cmp.subject;
  ctx.figure({ key: 'ratio', label: 'throughput ÷ hello-world throughput', value: cmp.ratio, unit: '×', digits: 3 });
  ctx.figure({ key: 'rps', label: `GET ${PATH} throughput`, value: s.rps, unit: 'req/s' });
  ctx.figure({ key: 'baselineRps', label: 'hello-world throughput (mean of both runs)', value: cmp.baselineRps, unit: 'req/s' });
  ctx.figure({ key: 'p50Ms', label: `GET ${PATH} latency p50`, value: s.latencyMs.p50, unit: 'ms' });
  ctx.figure({ key: 'p99Ms', label: `GET ${PATH} latency p99`, value: s.latencyMs.p99, unit: 'ms' });
  ctx.figure({ key: 'failedRequests', label: `GET ${PATH} failed requests (socket errors, timeouts, non-2xx)`, value: s.errors.total, unit: '' });
  const rss = server.rssBytes();
  if (rss !== undefined) ctx.figure({ key: 'serverRssMb', label: 'server resident memory after the load', value: rss / 1024 / 1024, unit: 'MB', digits: 0 });

  // Each answered call was charged one credit before it answered, so the ledger can only be
  // ahead of the count: by the calls in flight when each load run stopped, plus the charge of
  // the first usage read (charged after it had read the ledger).
  const creditsAfter = await creditsUsedToday(server);
  if (creditsBefore !== undefined && creditsAfter !== undefined) {
    const runs = cmp.subjectWarmup === undefined ? [s] : [cmp.subjectWarmup, s];
    const answered = runs.reduce((sum, r) => sum + r.requests - r.errors.total, 0);
    const slack = runs.reduce((sum, r) => sum + r.connections, 0) + 1;
    const charged = creditsAfter - creditsBefore;
    ctx.figure({ key: 'creditsCharged', label: 'credits charged (warm-up and measured run)', value: charged, unit: '' });
    ctx.figure({ key: 'callsAnswered', label: 'successful calls counted by the load generator (same runs)', value: answered, unit: '' });
    if (charged < answered || charged > answered + slack) {
      ctx.note(`Credits charged (${charged}) do not match the ${answered} successful calls (up to ${slack} more may have been in flight at the stops).`);
    }
  } else {
    ctx.note('Could not read the tenant daily usage, so credit charging was not cross-checked.');
  }
}

/** See the module comment. */
export const httpMe: Suite = {
  name: 'http-me',
  description:
    'GET /api/v1/me (API-key auth, a tenant actor ask, a credit charge) versus a bare uWebSockets.js hello world, ' +
    'measured baseline–server–baseline in one run.',
  targets: [{ figure: 'failedRequests', op: '<=', value: 0, description: 'failed requests under load' }],
  run,
};
