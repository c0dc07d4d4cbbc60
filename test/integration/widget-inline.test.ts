/**
 * The server-rendered thread inlined in the tenant's page (`GET /ssr/comments/inline`, fetched
 * by the tenant's server and put inside the widget's element), in real Chromium: the comments
 * show before the widget's app has run (its request is held), and the app then takes that very
 * markup over (the same DOM nodes) without reading the thread again; posting, voting and live
 * comments then work, and each comment is shown once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Request } from 'playwright-core';
import { type TestServer } from '../fixtures/server.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { broadcast, commentData, widget } from './public-comments-helpers.js';

/** What the tenant's server does: fetches the fragment for a page. */
async function inlineFragment(t: TestServer, tenantId: string, urlId: string): Promise<string> {
  const res = await fetch(`${t.url}/ssr/comments/inline?tenantId=${encodeURIComponent(tenantId)}&urlId=${encodeURIComponent(urlId)}`);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  return text;
}

/** The tenant's page: the fragment inside the widget's element, then the usual embed. */
function inlinePage(apiUrl: string, fragment: string, config: Record<string, unknown>): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A blog post</title></head>
<body><main><h1>A blog post</h1><p>Some text.</p><div id="comments">${fragment}</div></main>
<script>window.renders = 0;</script>
<script src="${apiUrl}/js/embed-v2.min.js"></script>
<script>window.widget = FastCommentsUI(document.getElementById('comments'), Object.assign(${JSON.stringify(config)}, { onRender: () => window.renders++ }));</script>
</body></html>`;
}

WidgetScenario.describe(`the inline server-rendered thread`, (s) => {
  test('shown before the app runs, then taken over in place with no second read; post, vote and live work', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'inline-1';
    for (const [name, text] of [['Seeder', 'First seeded comment'], ['Other', 'Second seeded comment, with </script> in it']] as const) {
      const seeded = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, text, { commenterName: name }));
      assert.equal(seeded.status, 200);
    }
    const fragment = await inlineFragment(s.t, tenantId, urlId);
    assert.match(fragment, /^<template shadowrootmode="open">/);

    // The app's script is held until the server-rendered thread has been checked.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let appRequested!: () => void;
    const appAsked = new Promise<void>((resolve) => (appRequested = resolve));
    const requests: Request[] = [];
    const reader = await s.reader('about:blank', {
      beforeLoad: (page) =>
        page.route(`${s.t.url}/js/widget-app.min.js`, async (route) => {
          appRequested();
          await held;
          await route.continue();
        }),
    });
    const page = reader.page;
    page.on('request', (r) => requests.push(r));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(s.site.page('/inline-1', inlinePage(s.t.url, fragment, { tenantId, urlId })));

    await appAsked;
    const seeder = page.getByRole('article', { name: 'Seeder' });
    await seeder.getByText('First seeded comment').waitFor();
    await page.getByRole('article', { name: 'Other' }).getByText('Second seeded comment, with </script> in it').waitFor();
    assert.equal(await page.evaluate(() => 'FastCommentsApp' in globalThis), false, 'the app has not run yet');
    // A mark on the shown node: it survives only if the app reuses the node.
    await seeder.evaluate((el) => ((el as unknown as { inlineMark: boolean }).inlineMark = true));

    release();
    await page.waitForFunction(() => (globalThis as unknown as { renders: number }).renders > 0);
    assert.equal(await seeder.evaluate((el) => (el as unknown as { inlineMark?: boolean }).inlineMark === true), true, 'the markup was taken over, not rendered again');

    // Interactive: a post and a vote.
    await page.getByRole('textbox', { name: 'Write a comment…' }).fill('Posted over the inline thread');
    await page.getByLabel('Your name').fill('Ina');
    await page.getByRole('button', { name: 'Post' }).click();
    await page.getByRole('article', { name: 'Ina' }).getByText('Posted over the inline thread').waitFor();
    await seeder.getByRole('button', { name: 'Vote up' }).click();
    await seeder.getByRole('button', { name: 'Vote up', pressed: true }).waitFor();
    await seeder.getByLabel('1 votes').waitFor();

    // Live: another reader's comment waits behind the button, from the ids the inline state gave.
    const live = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Arrived live', { commenterName: 'Liv' }));
    assert.equal(live.status, 200);
    await page.getByRole('button', { name: /1 new comment/ }).click();
    await page.getByRole('article', { name: 'Liv' }).getByText('Arrived live').waitFor();

    for (const text of ['First seeded comment', 'Second seeded comment, with </script> in it', 'Posted over the inline thread', 'Arrived live']) {
      assert.equal(await page.getByText(text).count(), 1, `${text} shown once`);
    }
    assert.equal(await page.getByRole('article').count(), 4);

    // The server stored the post and the vote.
    const stored = await widget(s.t, 'GET', `/comments/${tenantId}`, { urlId });
    const byText = new Map((stored.body.comments as Array<{ commentHTML: string; votes?: number }>).map((c) => [c.commentHTML, c]));
    assert.ok([...byText.keys()].some((h) => h.includes('Posted over the inline thread')));
    assert.equal([...byText.entries()].find(([h]) => h.includes('First seeded comment'))?.[1].votes, 1);

    // The first read was the server's: the page never read the list, nor the strings.
    const apiPaths = requests.filter((r) => r.url().startsWith(s.t.url)).map((r) => `${r.method()} ${new URL(r.url()).pathname}`);
    assert.equal(apiPaths.filter((p) => p === `GET /comments/${tenantId}`).length, 0, apiPaths.join('\n'));
    assert.equal(apiPaths.filter((p) => p.startsWith('GET /translations/')).length, 0, apiPaths.join('\n'));
    assert.ok(apiPaths.includes(`POST /comments/${tenantId}`), apiPaths.join('\n'));

    // Back later with a session: the page's (anonymous) markup is shown and taken over, and
    // the thread is read once for this reader, whose own comment gets its controls.
    requests.length = 0;
    await page.goto(s.site.page('/inline-1', inlinePage(s.t.url, await inlineFragment(s.t, tenantId, urlId), { tenantId, urlId })));
    const own = page.getByRole('article', { name: 'Ina' });
    await own.getByRole('button', { name: 'Edit' }).waitFor();
    await page.getByRole('button', { name: 'Vote up', pressed: true }).waitFor();
    const reads = requests.filter((r) => r.method() === 'GET' && new URL(r.url()).pathname === `/comments/${tenantId}`);
    assert.equal(reads.length, 1, reads.map((r) => r.url()).join('\n'));
    assert.equal(await page.getByText('Posted over the inline thread').count(), 1);
    assert.deepEqual(errors, []);
  });

  test('a reader whose system prefers dark sees the inlined thread dark, before and after the app takes it over', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'inline-dark';
    const seeded = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Read in the dark', { commenterName: 'Seeder' }));
    assert.equal(seeded.status, 200);
    const fragment = await inlineFragment(s.t, tenantId, urlId);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const reader = await s.reader('about:blank', {
      colorScheme: 'dark',
      beforeLoad: (page) =>
        page.route(`${s.t.url}/js/widget-app.min.js`, async (route) => {
          await held;
          await route.continue();
        }),
    });
    const page = reader.page;
    await page.goto(s.site.page('/inline-dark', inlinePage(s.t.url, fragment, { tenantId, urlId })));
    const region = page.getByRole('region', { name: /^Comments/ });
    await region.getByText('Read in the dark').waitFor();
    const background = () => region.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor as string);
    const before = await background();
    release();
    await page.waitForFunction(() => (globalThis as unknown as { renders: number }).renders > 0);
    assert.equal(await page.locator('section.fc.dark').count(), 1);
    assert.equal(await background(), before);
    assert.equal(before, 'rgb(22, 24, 28)');
  });

  test('a bad request for the fragment is refused in words', async () => {
    const res = await fetch(`${s.t.url}/ssr/comments/inline?tenantId=${encodeURIComponent(s.t.tenant.tenantId)}`);
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await res.text(), /Code: [a-z-]+/);
  });

  test('markup of another page is not taken over: the embed reads its own thread once', async () => {
    const tenantId = s.t.tenant.tenantId;
    for (const [urlId, text] of [['inline-a', 'Only on page A'], ['inline-b', 'Only on page B']] as const) {
      const seeded = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, text, { commenterName: 'Seeder' }));
      assert.equal(seeded.status, 200);
    }
    const fragment = await inlineFragment(s.t, tenantId, 'inline-a');
    const reader = await s.reader('about:blank');
    const page = reader.page;
    const reads: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'GET' && r.url().startsWith(`${s.t.url}/comments/${tenantId}?`)) reads.push(r.url());
    });
    await page.goto(s.site.page('/inline-b', inlinePage(s.t.url, fragment, { tenantId, urlId: 'inline-b' })));
    await page.getByRole('article', { name: 'Seeder' }).getByText('Only on page B').waitFor();
    assert.equal(await page.getByText('Only on page A').count(), 0);
    assert.equal(reads.length, 1, reads.join('\n'));
  });
});
