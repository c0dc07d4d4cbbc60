/**
 * The official React wrapper from npm (`fastcomments-react`, unmodified) drives our widget:
 * the wrapper is bundled with React by esbuild into a host page that loads our
 * `/js/embed-v2.min.js` first, so the wrapper finds `window.FastCommentsUI` and never fetches
 * FastComments' own script. It renders the thread and posts through our API, host page on
 * localhost and API on 127.0.0.1, third-party cookies blocked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { bundleApp } from '../fixtures/wrapper-page.js';
import { broadcast, commentData, widget } from './public-comments-helpers.js';

/** The test page's app: the wrapper's comment widget, mounted by React with the page's config. */
const ENTRY = `
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { FastCommentsCommentWidget } from 'fastcomments-react';
createRoot(document.getElementById('root')).render(createElement(FastCommentsCommentWidget, window.widgetConfig));
`;

/** A host page as a React site using the wrapper: our script first, then the React app. */
function reactPage(apiUrl: string, config: Record<string, unknown>, app: string): string {
  // The bundle is inlined: keep a stray "</script" inside it from closing the tag early.
  const inline = app.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A React blog</title>
<script src="${apiUrl}/js/embed-v2.min.js"></script></head>
<body><main><h1>A React blog</h1><div id="root"></div></main>
<script>window.widgetConfig = ${JSON.stringify(config)};</script>
<script>${inline}</script></body></html>`;
}

/** The React app, bundled once before the tests. */
class ReactSite extends WidgetScenario {
  app = '';
  protected override async setUp(): Promise<void> {
    this.app = await bundleApp(ENTRY);
  }
}

ReactSite.describe(`the fastcomments-react wrapper`, (s) => {
  test('the unmodified wrapper renders the thread and posts a comment through our script', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'react-1';
    const seeded = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Seeded before React mounted', { commenterName: 'Seeder' }));
    assert.equal(seeded.status, 200);

    const { page, requested, errors } = await s.watchedPage();
    await page.goto(s.site.page('/react', reactPage(s.t.url, { tenantId, urlId }, s.app)));

    // The wrapper made its own element (id "fastcomments-widget-…") and our widget filled it.
    const host = page.locator('#root [id^="fastcomments-widget-"]');
    await host.waitFor({ state: 'attached' });
    await page.getByRole('article', { name: 'Seeder' }).getByText('Seeded before React mounted').waitFor();

    await page.getByRole('textbox', { name: 'Write a comment…' }).fill('Posted from a React page');
    await page.getByLabel('Your name').fill('Rea');
    await page.getByRole('button', { name: 'Post' }).click();
    await page.getByRole('article', { name: 'Rea' }).getByText('Posted from a React page').waitFor();

    // The comment reached our server, on the page the wrapper named.
    const stored = await widget(s.t, 'GET', `/comments/${tenantId}`, { urlId });
    assert.equal(stored.status, 200);
    const texts = (stored.body.comments as Array<{ commenterName: string; commentHTML: string }>).map((c) => `${c.commenterName}: ${c.commentHTML}`);
    assert.ok(texts.some((s) => s.includes('Rea: Posted from a React page')), texts.join('\n'));

    assert.ok(!requested.some((u) => u.includes('fastcomments.com')), requested.join('\n'));
    assert.ok(requested.some((u) => u.startsWith(`${s.t.url}/js/embed-v2.min.js`)));
    assert.deepEqual(errors, []);
  });
});
