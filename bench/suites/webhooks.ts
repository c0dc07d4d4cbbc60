/**
 * Webhooks: how fast queued events reach a fast receiver, and what three subscriptions add to
 * a comment write.
 *
 * 1. Deliveries per second: with the receiver holding every request, comments queue a backlog
 *    of events (one URL, then four URLs of the same receiver: 4 and 8 deliveries of the tenant
 *    in flight); the receiver then answers 200 at once, and the backlog's drain is timed, with
 *    the server's CPU per delivery (signing, the request, recording it, deleting the event).
 * 2. `POST /api/v1/comments` with no subscription, then with three (each comment queues three
 *    events in its batch, delivered to the fast receiver while the load runs), then none again,
 *    on one server: throughput, and the server's CPU per comment: without subscriptions as
 *    measured over the load, with them from the start of the run until its last delivery. A run
 *    with the receiver holding its requests (no delivery ends) measures the write alone.
 *
 * The receiver runs in the benchmark process (node:http), sharing the machine with the server
 * and wrk.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadRow, mainThreadCpuSeconds, meanMainCpuUs, processCpuSeconds } from '../lib/cpu.js';
import type { LoadSpec } from '../lib/load.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const BACKLOG = 2000;
const PAGES = 100;

/** A receiver answering 200 at once, or holding requests until told to answer. */
class Receiver {
  received = 0;
  readonly ids = new Set<string>();
  #holding = true;
  #held: (() => void)[] = [];
  readonly #server: Server;
  port = 0;

  constructor() {
    this.#server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.received++;
        this.ids.add(String(req.headers['webhook-id']));
        const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        if (this.#holding) this.#held.push(answer);
        else answer();
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  hold(): void {
    this.#holding = true;
  }

  release(): void {
    this.#holding = false;
    for (const answer of this.#held.splice(0)) answer();
  }

  async close(): Promise<void> {
    this.release();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

function api(server: ServerProcess) {
  const headers = { ...server.authHeaders, 'content-type': 'application/json' };
  return async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(server.url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
}

async function pending(call: ReturnType<typeof api>): Promise<number> {
  return (await call('GET', '/api/v1/pending-webhook-events/count'))['count'] as number;
}

/** Waits for `check`; `everyMs` apart (checks that call the server cost it CPU: poll those slowly). */
async function until(check: () => Promise<boolean> | boolean, everyMs = 20): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('webhook bench: condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function subscribeAll(call: ReturnType<typeof api>, urls: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const url of urls) ids.push(((await call('POST', '/api/v1/webhooks', { url, event: 'comment-created' }))['webhook'] as { id: string }).id);
  return ids;
}

/** Queues `BACKLOG` events on `urls` while the receiver holds, then times their delivery. */
async function drain(ctx: SuiteContext, server: ServerProcess, receiver: Receiver, urls: readonly string[], tag: string): Promise<void> {
  const call = api(server);
  const subs = await subscribeAll(call, urls);
  receiver.hold();
  // Held requests count as received when they arrive: the count starts before the backlog does.
  const before = receiver.ids.size;
  const comments = BACKLOG / urls.length;
  ctx.progress(`queueing ${BACKLOG} events (${comments} comments × ${urls.length} URLs)`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let n = next++; n < comments; n = next++) {
        await call('POST', '/api/v1/comments', { commenterName: 'Bench', comment: `backlog ${tag} ${n}`, url: `https://example.com/b${n % PAGES}`, urlId: `b${n % PAGES}`, locale: 'en_us' });
      }
    }),
  );
  await until(async () => (await pending(call)) === BACKLOG, 250);
  const main0 = mainThreadCpuSeconds(server.pid);
  const all0 = processCpuSeconds(server.pid);
  const t0 = performance.now();
  ctx.progress('delivering');
  receiver.release();
  await until(() => receiver.ids.size - before >= BACKLOG);
  const seconds = (performance.now() - t0) / 1000;
  const main = (mainThreadCpuSeconds(server.pid) ?? 0) - (main0 ?? 0);
  const all = (processCpuSeconds(server.pid) ?? 0) - (all0 ?? 0);
  await until(async () => (await pending(call)) === 0, 250);
  for (const id of subs) await call('DELETE', `/api/v1/webhooks/${id}`);
  const perSecond = BACKLOG / seconds;
  const inFlight = Math.min(8, 4 * urls.length);
  ctx.row({ label: `deliveries to a fast receiver, ${urls.length} URL${urls.length > 1 ? 's' : ''} (${inFlight} in flight)`, role: 'subject', throughput: perSecond, unit: 'deliveries/s' });
  ctx.figure({ key: `deliveriesPerSecond${tag}`, label: `deliveries per second, ${urls.length} URL(s), ${inFlight} in flight`, value: perSecond, unit: '/s', digits: 0 });
  if (main0 !== undefined) {
    ctx.figure({ key: `deliveryMainCpuUs${tag}`, label: `server main-thread CPU per delivery, ${urls.length} URL(s)`, value: (main * 1e6) / BACKLOG, unit: 'µs', digits: 1 });
    ctx.figure({ key: `deliveryProcessCpuUs${tag}`, label: `server CPU per delivery, all threads, ${urls.length} URL(s)`, value: (all * 1e6) / BACKLOG, unit: 'µs', digits: 1 });
  }
}

function commentLua(): string {
  return `
math.randomseed(os.time() + math.floor(os.clock() * 1e6))
local tag = tostring(math.random(1, 1000000000))
local i = 0
request = function()
  i = i + 1
  local page = "w" .. (i % ${PAGES})
  local body = '{"commenterName":"Bench","comment":"Hello ' .. tag .. ' ' .. i .. '","url":"https://example.com/' .. page .. '","urlId":"' .. page .. '","locale":"en_us"}'
  return wrk.format("POST", "/api/v1/comments", nil, body)
end
`;
}

async function writeCost(ctx: SuiteContext, server: ServerProcess, receiver: Receiver): Promise<void> {
  const call = api(server);
  receiver.release();
  const spec: LoadSpec = { url: `${server.url}/api/v1/comments`, method: 'POST', headers: { ...server.authHeaders, 'content-type': 'application/json' }, lua: commentLua(), connections: 32, serverPid: server.pid };
  ctx.progress('comments, no subscription');
  const before = await ctx.load(spec);
  const subs = await subscribeAll(call, ['/w1', '/w2', '/w3'].map((p) => receiver.url(p)));
  // The write alone: the receiver holds the few requests sent, so no delivery ends meanwhile.
  receiver.hold();
  ctx.progress('comments, three subscriptions, receiver holding');
  const held = await ctx.load(spec);
  receiver.release();
  ctx.progress('delivering what the held run queued');
  await until(async () => (await pending(call)) === 0, 250);
  const ids0 = receiver.ids.size;
  // The whole run with subscriptions, warm-up and the deliveries finished after it included.
  const main0 = mainThreadCpuSeconds(server.pid);
  const all0 = processCpuSeconds(server.pid);
  ctx.progress('comments, three subscriptions');
  const subject = await ctx.load(spec);
  const deliveredDuring = receiver.ids.size - ids0;
  ctx.progress('finishing the deliveries');
  await until(async () => (await pending(call)) === 0, 250);
  const main = (mainThreadCpuSeconds(server.pid) ?? 0) - (main0 ?? 0);
  const all = (processCpuSeconds(server.pid) ?? 0) - (all0 ?? 0);
  const delivered = receiver.ids.size - ids0;
  for (const id of subs) await call('DELETE', `/api/v1/webhooks/${id}`);
  ctx.progress('comments, no subscription, again');
  const after = await ctx.load(spec);

  const baselineRps = (before.rps + after.rps) / 2;
  ctx.row(loadRow('POST /api/v1/comments, no subscription (before)', 'baseline', before));
  ctx.row(loadRow('POST /api/v1/comments, three subscriptions, receiver holding (no delivery ends)', 'subject', held, held.rps / baselineRps));
  ctx.row(loadRow('POST /api/v1/comments, three subscriptions (deliveries under way)', 'subject', subject, subject.rps / baselineRps));
  ctx.row(loadRow('POST /api/v1/comments, no subscription (after)', 'baseline', after));
  ctx.figure({ key: 'writeRatio', label: 'comment throughput with three subscriptions ÷ without', value: subject.rps / baselineRps, unit: '×', digits: 3 });
  const plainUs = meanMainCpuUs([before, after]);
  const plainAllUs = [before, after].map((r) => r.serverCpu?.processUs).filter((v): v is number => v !== undefined);
  // Every comment of the run (warm-up included) made three deliveries, each with its own id.
  const comments = delivered / 3;
  if (plainUs !== undefined && main0 !== undefined && comments > 0) {
    const subsUs = (main * 1e6) / comments;
    ctx.figure({ key: 'plainMainCpuUs', label: 'server main-thread CPU per comment, no subscription', value: plainUs, unit: 'µs', digits: 1 });
    if (held.serverCpu !== undefined) {
      ctx.figure({ key: 'writeOnlyMainCpuUs', label: 'server main-thread CPU per comment, three subscriptions, receiver holding (the write and its three queued events)', value: held.serverCpu.mainThreadUs, unit: 'µs', digits: 1 });
      ctx.figure({ key: 'addedWriteMainCpuUs', label: 'added main-thread CPU per comment write with three subscriptions, deliveries left out', value: held.serverCpu.mainThreadUs - plainUs, unit: 'µs', digits: 1 });
    }
    ctx.figure({ key: 'subsMainCpuUs', label: 'server main-thread CPU per comment, three subscriptions, its three deliveries included', value: subsUs, unit: 'µs', digits: 1 });
    ctx.figure({ key: 'addedMainCpuUs', label: 'added main-thread CPU per comment write with three subscriptions, its three deliveries included', value: subsUs - plainUs, unit: 'µs', digits: 1 });
    if (plainAllUs.length > 0) {
      const plainAll = plainAllUs.reduce((a, b) => a + b, 0) / plainAllUs.length;
      ctx.figure({ key: 'addedProcessCpuUs', label: 'added CPU per comment write with three subscriptions, all threads', value: (all * 1e6) / comments - plainAll, unit: 'µs', digits: 1 });
    }
  }
  ctx.figure({ key: 'failedRequests', label: 'failed comment writes with three subscriptions', value: subject.errors.total, unit: '' });
  ctx.note(`With three subscriptions ${comments} comments were written (warm-up included, ${subject.requests} in the measured phase), making ${delivered} deliveries: ${deliveredDuring} while the load ran, the rest after it.`);
}

/** See the module comment. */
export const webhooks: Suite = {
  name: 'webhooks',
  description: 'Webhook deliveries per second to a fast receiver (a backlog drained), and comment writes with three subscriptions vs. none.',
  targets: [{ figure: 'failedRequests', op: '<=', value: 0, description: 'no failed comment' }],
  async run(ctx) {
    const receiver = new Receiver();
    await receiver.listen();
    ctx.onCleanup(() => receiver.close());
    const server = await ctx.startServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await drain(ctx, server, receiver, [receiver.url('/one')], 'OneUrl');
    await drain(ctx, server, receiver, ['/a', '/b', '/c', '/d'].map((p) => receiver.url(p)), 'FourUrls');
    await writeCost(ctx, server, receiver);
  },
};
