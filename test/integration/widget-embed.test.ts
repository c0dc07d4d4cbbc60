/**
 * How the widget embeds, in real Chromium: the loader fetches nothing until the element nears
 * the viewport; the async script mounts `window.fcConfigs`; the shadow root keeps the host's CSS
 * out while `customCSS` applies; right-to-left locales; dark mode switched at run time through
 * `update`; `destroy` is idempotent and leaves the element reusable.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';
import { embedPage } from '../fixtures/browser.js';
import { repoFile } from '../fixtures/paths.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { broadcast, commentData, widget } from './public-comments-helpers.js';

/** Where the screenshots go (test output; docs/ holds one of each, copied by hand). */
const SHOTS = repoFile('dist/test-output/widget');

/** The screenshots' folder is made before the first test. */
class Embedding extends WidgetScenario {
  protected override async setUp(): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
  }
}

Embedding.describe(`embedding the widget`, (s) => {
  test('the loader fetches the app and the comments only when the element nears the viewport', async () => {
    const config = { tenantId: s.t.tenant.tenantId, urlId: 'lazy-1', apiHost: s.t.url };
    const spacer = '<div style="height:6000px">Long article</div>';
    const html = embedPage(s.t.url, config).replace('<div id="comments">', `${spacer}<div id="comments">`);
    const { page, requested } = await s.watchedPage();
    await page.goto(s.site.page('/lazy', html));
    await page.waitForLoadState('networkidle');
    assert.ok(requested.some((u) => u.endsWith('/js/embed-v2.min.js')));
    assert.ok(!requested.some((u) => u.includes('widget-app') || u.includes('/comments/')), requested.join('\n'));
    assert.equal(await page.evaluate(() => typeof (globalThis as any).FastCommentsUI), 'function');
    await page.getByText('Long article').evaluate((el) => el.parentElement!.querySelector('#comments')!.scrollIntoView());
    await page.getByText('No comments yet. Be the first!').waitFor();
    assert.ok(requested.some((u) => u.includes('/js/widget-app.min.js')));
  });

  test('usePolling reads the event log instead of opening a socket', async () => {
    const tenantId = s.t.tenant.tenantId;
    const reader = await s.reader('about:blank');
    const sockets: string[] = [];
    reader.page.on('websocket', (ws) => sockets.push(ws.url()));
    await reader.page.goto(s.embed('poll-1', { usePolling: true }, '/polling'));
    await reader.page.getByText('No comments yet. Be the first!').waitFor();
    await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId: 'poll-1', broadcastId: broadcast() }, commentData('poll-1', 'Found by polling', { commenterName: 'Polly' }));
    await reader.page.getByRole('button', { name: /1 new comment/ }).click();
    await reader.page.getByRole('article', { name: 'Polly' }).getByText('Found by polling').waitFor();
    assert.deepEqual(sockets, []);
  });

  test('the async script mounts every fcConfigs entry and lists it in fcUIInstances', async () => {
    const html = `<!doctype html><html lang="en"><head><title>Async</title></head><body><main><div id="c1"></div></main>
<script>window.fcConfigs=[{target:'#c1',tenantId:${JSON.stringify(s.t.tenant.tenantId)},urlId:'async-1'}];</script>
<script async src="${s.t.url}/js/embed-v2-async.min.js"></script></body></html>`;
    const page = await s.open(s.site.page('/async', html));
    await page.getByText('No comments yet. Be the first!').waitFor();
    assert.equal(await page.evaluate(() => (globalThis as any).fcUIInstances.length), 1);
    assert.equal(await page.evaluate(() => (globalThis as any).fcUIInstances[0].targetElement.id), 'c1');
  });

  test("the host's CSS stays out, customCSS applies, dark mode switches through update, destroy is idempotent", async () => {
    const config = { tenantId: s.t.tenant.tenantId, urlId: 'style-1', apiHost: s.t.url, customCSS: 'h2{color:rgb(1, 2, 3)}' };
    const hostCss = '<style>button{color:rgb(255, 0, 0) !important;background:rgb(255, 0, 0) !important}</style>';
    const page = await s.open(s.site.page('/style', embedPage(s.t.url, config, hostCss)));
    const post = page.getByRole('button', { name: 'Post' });
    await post.waitFor();
    assert.notEqual(await post.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor), 'rgb(255, 0, 0)');
    const heading = page.getByRole('heading', { name: /Comments/ });
    assert.equal(await heading.evaluate((el) => (globalThis as any).getComputedStyle(el).color), 'rgb(1, 2, 3)');
    const region = page.getByRole('region', { name: /Comments/ });
    const background = () => region.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor as string);
    assert.equal(await background(), 'rgb(255, 255, 255)');
    await page.screenshot({ path: `${SHOTS}/light.png` });
    await page.evaluate((c) => (globalThis as any).widget.update({ ...c, hasDarkBackground: true }), config);
    await page.waitForFunction(() => {
      const section = (globalThis as any).document.getElementById('comments').shadowRoot.querySelector('section');
      return (globalThis as any).getComputedStyle(section).backgroundColor !== 'rgb(255, 255, 255)';
    });
    await page.screenshot({ path: `${SHOTS}/dark.png` });
    await page.evaluate(() => {
      const w = (globalThis as any).widget;
      w.destroy();
      w.destroy();
    });
    assert.equal(await page.getByRole('button', { name: 'Post' }).count(), 0);
    await page.evaluate((c) => {
      const g = globalThis as any;
      g.widget = g.FastCommentsUI(g.document.getElementById('comments'), c);
    }, config);
    await page.getByRole('button', { name: 'Post' }).waitFor();
  });

  test('a right-to-left locale lays the widget out right to left, in its language', async () => {
    const tenantId = s.t.tenant.tenantId;
    await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId: 'rtl-1', broadcastId: broadcast() }, commentData('rtl-1', 'مرحبا بالجميع', { commenterName: 'سارة' }));
    const page = await s.open(s.embed('rtl-1', { locale: 'ar' }, '/rtl'));
    await page.getByRole('article', { name: 'سارة' }).waitFor();
    const region = page.getByRole('region', { name: /التعليقات/ });
    await region.waitFor();
    assert.equal(await region.evaluate((el) => (globalThis as any).getComputedStyle(el).direction), 'rtl');
    await page.getByRole('button', { name: 'نشر' }).waitFor();
    await page.locator('#comments').screenshot({ path: `${SHOTS}/rtl.png` });
  });

  test('the demo page shows the widget on the server\'s own host', async () => {
    const page = await s.open(`${s.t.url.replace('127.0.0.1', 'localhost')}/demo?tenantId=${s.t.tenant.tenantId}`);
    await page.getByRole('textbox', { name: 'Write a comment…' }).fill('Hello, demo');
    await page.getByLabel('Your name').fill('Newcomer');
    await page.getByRole('button', { name: 'Post' }).click();
    await page.getByRole('article', { name: 'Newcomer' }).getByText('Hello, demo').waitFor();
  });
});
