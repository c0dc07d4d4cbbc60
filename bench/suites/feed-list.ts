/**
 * `GET /api/v1/feed-posts` on a feed of 10,000 posts, against the hello-world baseline: the
 * first page (20 newest), and a page 5,000 posts deep (`afterId`). The feed actor keeps the
 * answers of recent queries and publishes them as a read view, so a repeated page is served
 * without a message or a storage read; the time of the first, uncached read of each is reported
 * too.
 */
import type { ServerProcess } from '../lib/processes.js';
import { figureServerCpu } from '../lib/cpu.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const POSTS = 10_000;
const BATCH = 50;

async function post(server: ServerProcess, path: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { ...server.authHeaders, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, any>;
}

async function seed(server: ServerProcess): Promise<string[]> {
  await post(server, '/api/v1/sso-users', { id: 'bench-author', username: 'bench-author', email: 'author@bench.example', displayName: 'Bench Author' });
  const ids: string[] = [];
  for (let i = 0; i < POSTS; i += BATCH) {
    const made = await Promise.all(
      Array.from({ length: Math.min(BATCH, POSTS - i) }, (_, j) =>
        post(server, '/api/v1/feed-posts', {
          fromUserId: 'bench-author',
          title: `Post ${i + j}`,
          contentHTML: `<b>News</b> number ${i + j}, with a <a href="https://example.com/${i + j}">link</a>.`,
          media: [{ title: 'photo', sizes: [{ w: 640, h: 480, src: `https://cdn.example.com/${i + j}.jpg` }] }],
          tags: [(i + j) % 10 === 0 ? 'featured' : 'daily'],
        }),
      ),
    );
    for (const r of made) ids.push(r['feedPost']._id as string);
  }
  return ids;
}

/** Time of one request, in ms. */
async function timed(server: ServerProcess, path: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}${path}`, { headers: server.authHeaders });
  await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
  return performance.now() - started;
}

async function run(ctx: SuiteContext): Promise<void> {
  const baseline = await ctx.startBaseline();
  const server = await ctx.startServer();
  ctx.progress(`seeding ${POSTS} feed posts`);
  const ids = await seed(server);
  const first = '/api/v1/feed-posts';
  const deep = `/api/v1/feed-posts?afterId=${ids[POSTS / 2]}`;
  ctx.figure({ key: 'coldFirstMs', label: 'first page, first (uncached) read', value: await timed(server, first), unit: 'ms', digits: 1 });
  ctx.figure({ key: 'coldDeepMs', label: 'page 5,000 posts deep, first (uncached) read', value: await timed(server, deep), unit: 'ms', digits: 1 });

  for (const [key, label, path] of [
    ['first', 'GET /api/v1/feed-posts (10,000 posts, newest 20)', first],
    ['deep', 'GET /api/v1/feed-posts?afterId= (5,000 deep, 20)', deep],
  ] as const) {
    const cmp = await ctx.compare({ label, subject: { url: `${server.url}${path}`, headers: server.authHeaders, serverPid: server.pid }, baseline: { url: `${baseline.url}/` } });
    ctx.figure({ key: `${key}Ratio`, label: `${label}: throughput ÷ hello-world throughput`, value: cmp.ratio, unit: '×', digits: 3 });
    ctx.figure({ key: `${key}Rps`, label: `${label}: throughput`, value: cmp.subject.rps, unit: 'req/s' });
    ctx.figure({ key: `${key}P99Ms`, label: `${label}: latency p99`, value: cmp.subject.latencyMs.p99, unit: 'ms' });
    ctx.figure({ key: `${key}Failed`, label: `${label}: failed requests`, value: cmp.subject.errors.total, unit: '' });
    if (key === 'first') figureServerCpu(ctx, cmp.subject, 'read');
  }
  ctx.note('Each call is authenticated and charged 2 credits (1 per 10 posts). The feed is not changed during the load: a change drops the kept answers.');
}

/** See the module comment. */
export const feedList: Suite = {
  name: 'feed-list',
  description: 'GET /api/v1/feed-posts on a 10,000-post feed (first page and 5,000 deep) versus a bare uWebSockets.js hello world.',
  targets: [
    { figure: 'firstRatio', op: '>=', value: 0.3, description: 'share of hello-world throughput, first page' },
    { figure: 'firstFailed', op: '<=', value: 0, description: 'failed requests under load' },
  ],
  run,
};
