/**
 * The embeddable widget in headless Chromium (Debian's, through playwright-core), on a page of
 * 500 comments, host page on `localhost` and API on `127.0.0.1`, each load in a fresh browser
 * context (cold cache, as a new reader):
 *
 * - time to the first rendered comment with the element in view, against the host page's own
 *   `DOMContentLoaded` in the same load (medians over the loads, and the median per-load ratio);
 *   the same with the thread server-rendered into the page (`/ssr/comments/inline`);
 * - what the loader costs before the widget scrolls into view: bytes received and main-thread
 *   script time (Chromium's `Performance.getMetrics`) of the page with the element far below
 *   the fold, against the very same page without the script.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { seed, URL_ID } from './comments-get.js';

const CHROMIUM = '/usr/bin/chromium';
/** Loads measured per variant (after one unmeasured load of each). */
const LOADS = Number(process.env['WIDGET_BENCH_LOADS'] ?? 7);

/** What the page records: the first comment's time and the app's first render (ms since navigation start). */
const PROBE = `<script>window.__fc = { first: undefined, app: undefined };
window.__fcRendered = function (byApp) {
  var root = document.getElementById('comments').shadowRoot;
  if (byApp && window.__fc.app === undefined) window.__fc.app = performance.now();
  if (window.__fc.first === undefined && root && root.querySelector('article')) window.__fc.first = performance.now();
};</script>`;

const ARTICLE = `<h1>A blog post</h1>${'<p>Some text of the article, long enough to be a paragraph a reader reads before the comments.</p>'.repeat(20)}`;

function embed(apiUrl: string, tenantId: string): string {
  const config = `{ tenantId: ${JSON.stringify(tenantId)}, urlId: ${JSON.stringify(URL_ID)}, onRender: function () { window.__fcRendered(true); } }`;
  return `<script src="${apiUrl}/js/embed-v2.min.js"></script><script>FastCommentsUI(document.getElementById('comments'), ${config});</script>`;
}

/** The host pages, by path. */
function pages(apiUrl: string, tenantId: string, fragment: string): Map<string, string> {
  const doc = (body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A blog post</title>${PROBE}</head><body><main>${body}</main></body></html>`;
  const below = '<div style="height:6000px"></div>';
  return new Map([
    // The element in view: the loader fetches the app at once.
    ['/in-view', doc(`<h1>A blog post</h1><div id="comments"></div>${embed(apiUrl, tenantId)}`)],
    // The thread server-rendered into the element; the parser reaches the first comment, then the script.
    ['/inline', doc(`<h1>A blog post</h1><div id="comments">${fragment}</div><script>window.__fcRendered(false);</script>${embed(apiUrl, tenantId)}`)],
    // The element far below the fold, with and without the script.
    ['/below', doc(`${ARTICLE}${below}<div id="comments"></div>${embed(apiUrl, tenantId)}`)],
    ['/below-bare', doc(`${ARTICLE}${below}<div id="comments"></div>`)],
  ]);
}

function serve(html: Map<string, string>): Promise<Server> {
  const server = createServer((req, res) => {
    const body = html.get((req.url ?? '/').split('?')[0]!);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The page's DOMContentLoaded end (ms since navigation start), once it has happened. */
async function domContentLoaded(page: Page): Promise<number> {
  // Runs in the page (the browser's Performance API, not Node's).
  const read = () => Number((globalThis as any).performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? 0);
  await page.waitForFunction(read);
  return page.evaluate(read);
}

/** One cold load of a page with the element in view: first comment, app's first render and DOMContentLoaded. */
async function timeFirstComment(browser: Browser, url: string): Promise<{ first: number; app: number; dcl: number }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => (globalThis as any).__fc.first !== undefined && (globalThis as any).__fc.app !== undefined);
    const dcl = await domContentLoaded(page);
    const { first, app } = await page.evaluate(() => (globalThis as any).__fc as { first: number; app: number });
    return { first, app, dcl };
  } finally {
    await context.close();
  }
}

/** One cold load of a page with the element out of view: bytes received, script time, requests to the API. */
async function loadCost(browser: Browser, url: string, apiUrl: string): Promise<{ bytes: number; scriptMs: number; apiRequests: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Performance.enable');
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => (bytes += e.encodedDataLength));
    const apiRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(apiUrl)) apiRequests.push(new URL(r.url()).pathname);
    });
    await page.goto(url, { waitUntil: 'load' });
    // Whatever the page would still fetch on its own (it should fetch nothing more).
    await page.waitForLoadState('networkidle');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const scriptMs = (metrics.find((m) => m.name === 'ScriptDuration')?.value ?? 0) * 1000;
    return { bytes, scriptMs, apiRequests };
  } finally {
    await context.close();
  }
}

async function inlineFragment(server: ServerProcess): Promise<string> {
  const res = await fetch(`${server.url}/ssr/comments/inline?tenantId=${server.tenant.tenantId}&urlId=${URL_ID}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /ssr/comments/inline answered ${res.status} ${text.slice(0, 300)}`);
  return text;
}

async function run(ctx: SuiteContext): Promise<void> {
  const server = await ctx.startServer();
  ctx.progress('seeding 500 comments');
  await seed(server);
  const host = await serve(pages(server.url, server.tenant.tenantId, await inlineFragment(server)));
  ctx.onCleanup(() => new Promise<void>((resolve) => host.close(() => resolve())));
  const origin = `http://localhost:${(host.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  ctx.onCleanup(() => browser.close());

  ctx.progress('warming up');
  await timeFirstComment(browser, `${origin}/in-view`);
  await timeFirstComment(browser, `${origin}/inline`);
  await loadCost(browser, `${origin}/below`, server.url);
  await loadCost(browser, `${origin}/below-bare`, server.url);

  ctx.progress(`${LOADS} loads of each page`);
  const inView: Array<{ first: number; app: number; dcl: number }> = [];
  const inline: Array<{ first: number; app: number; dcl: number }> = [];
  const below: Array<{ bytes: number; scriptMs: number; apiRequests: string[] }> = [];
  const bare: Array<{ bytes: number; scriptMs: number; apiRequests: string[] }> = [];
  // Interleaved, so a busy moment of the machine touches every variant alike.
  for (let i = 0; i < LOADS; i++) {
    inView.push(await timeFirstComment(browser, `${origin}/in-view`));
    inline.push(await timeFirstComment(browser, `${origin}/inline`));
    below.push(await loadCost(browser, `${origin}/below`, server.url));
    bare.push(await loadCost(browser, `${origin}/below-bare`, server.url));
  }

  const dcl = median(inView.map((l) => l.dcl));
  const first = median(inView.map((l) => l.first));
  ctx.figure({ key: 'dclMs', label: 'host page DOMContentLoaded (median, element in view)', value: dcl, unit: 'ms', digits: 1 });
  ctx.figure({ key: 'firstCommentMs', label: 'first rendered comment (median)', value: first, unit: 'ms', digits: 1 });
  ctx.figure({ key: 'firstCommentRatio', label: 'first comment / DOMContentLoaded (median of per-load ratios)', value: median(inView.map((l) => l.first / l.dcl)), unit: '×' });
  ctx.figure({ key: 'inlineFirstCommentRatio', label: 'inline server-rendered: first comment / DOMContentLoaded', value: median(inline.map((l) => l.first / l.dcl)), unit: '×' });
  ctx.figure({ key: 'inlineAppRatio', label: 'inline server-rendered: app took over / DOMContentLoaded', value: median(inline.map((l) => l.app / l.dcl)), unit: '×' });
  const bytesWith = median(below.map((l) => l.bytes));
  const bytesWithout = median(bare.map((l) => l.bytes));
  ctx.figure({ key: 'beforeViewBytes', label: 'bytes received, element below the fold, with the script (median)', value: bytesWith, unit: 'B' });
  ctx.figure({ key: 'bareBytes', label: 'bytes received, same page without the script (median)', value: bytesWithout, unit: 'B' });
  ctx.figure({ key: 'beforeViewExtraBytes', label: 'the loader before view: extra bytes received', value: bytesWith - bytesWithout, unit: 'B' });
  const scriptWith = median(below.map((l) => l.scriptMs));
  const scriptWithout = median(bare.map((l) => l.scriptMs));
  ctx.figure({ key: 'beforeViewScriptMs', label: 'main-thread script time, with the script (median)', value: scriptWith, unit: 'ms', digits: 2 });
  ctx.figure({ key: 'bareScriptMs', label: 'main-thread script time, without the script (median)', value: scriptWithout, unit: 'ms', digits: 2 });
  ctx.figure({ key: 'beforeViewExtraScriptMs', label: 'the loader before view: extra main-thread script time', value: scriptWith - scriptWithout, unit: 'ms', digits: 2 });
  const requests = Math.max(...below.map((l) => l.apiRequests.length));
  ctx.figure({ key: 'beforeViewApiRequests', label: 'requests to the comment server before view (most in one load)', value: requests, unit: '' });
  ctx.note(`Requests to the comment server before view: ${[...new Set(below.flatMap((l) => l.apiRequests))].join(', ') || 'none'}.`);
  ctx.note(`${LOADS} cold loads of each page (fresh browser context each), interleaved, after one unmeasured load of each; WIDGET_BENCH_LOADS changes the number.`);
  ctx.note('First rendered comment: the widget\'s first render with a comment in its shadow root (`onRender`), or for the inline page the parser reaching the script right after the element; times since navigation start.');
}

/** `widget`: the widget's first comment and the loader's cost before view, in headless Chromium. */
export const widgetSuite: Suite = {
  name: 'widget',
  description: 'Time to the first rendered comment of a 500-comment page in headless Chromium, as a ratio to the host page\'s DOMContentLoaded; the loader\'s bytes and script time before the widget scrolls into view, against the same page without it.',
  targets: [
    { figure: 'beforeViewApiRequests', op: '<=', value: 1, description: 'only the loader is fetched before the widget nears the viewport' },
    { figure: 'beforeViewExtraBytes', op: '<=', value: 3072, description: 'the loader costs at most about its 3 KB budget before view' },
  ],
  run,
};
