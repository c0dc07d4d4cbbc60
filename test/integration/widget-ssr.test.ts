/**
 * The server-rendered fallback (`/ssr/comments`) in Chromium with JavaScript disabled, inside
 * an iframe in `<noscript>` on the host page: read, post, reply and vote through plain forms;
 * comments marked up for search engines; only the tenant's sites may frame it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { broadcast, commentData, widget } from './public-comments-helpers.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';

WidgetScenario.describe(`the server-rendered fallback`, (s) => {
  test('without JavaScript a reader reads, posts, replies and votes', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'ssr-1';
    const seeded = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Already here', { commenterName: 'Olga' }));
    assert.equal(seeded.status, 200);
    const src = `${s.t.url}/ssr/comments?tenantId=${tenantId}&urlId=${urlId}&url=${encodeURIComponent('https://blog.example.com/ssr-1')}`;
    const html = `<!doctype html><html lang="en"><head><title>No script</title></head><body><main>
<div id="comments"></div><noscript><iframe title="Comments" src="${src}" style="width:100%;height:700px;border:0"></iframe></noscript></main></body></html>`;
    const reader = await s.reader(s.site.page('/noscript', html), { javaScriptEnabled: false });
    const frame = reader.page.frameLocator('iframe[title="Comments"]');
    await frame.getByRole('article', { name: 'Olga' }).getByText('Already here').waitFor();

    await frame.getByRole('textbox', { name: 'Write a comment…' }).fill('Posted without script');
    await frame.getByLabel('Your name').fill('Nora');
    await frame.getByRole('button', { name: 'Post' }).click();
    const nora = frame.getByRole('article', { name: 'Nora' });
    await nora.getByText('Posted without script').waitFor();

    await frame.getByRole('article', { name: 'Olga' }).getByRole('link', { name: 'Reply' }).click();
    await frame.getByRole('textbox', { name: 'Reply to Olga' }).fill('A plain reply');
    await frame.getByRole('form', { name: 'Reply to Olga' }).getByLabel('Your name').fill('Nora');
    await frame.getByRole('form', { name: 'Reply to Olga' }).getByRole('button', { name: 'Reply' }).click();
    await frame.getByText('A plain reply').waitFor();

    const olga = frame.getByRole('article', { name: 'Olga' });
    await olga.getByRole('button', { name: 'Vote up' }).click();
    await frame.getByRole('article', { name: 'Olga' }).getByLabel('1 votes').waitFor();

    // A refusal comes back in words beside the form.
    await frame.getByRole('textbox', { name: 'Write a comment…' }).fill('Name is an email');
    await frame.getByLabel('Your name').fill('x@example.com');
    await frame.getByRole('button', { name: 'Post' }).click();
    await frame.getByRole('alert').getByText('The commenter name must not be an email address.').waitFor();

    // Everything reached the API as any widget write would.
    const read = await widget(s.t, 'GET', `/comments/${tenantId}`, { urlId, direction: 'OF' });
    assert.deepEqual(read.body.comments.map((c: any) => c.commenterName), ['Olga', 'Nora', 'Nora']);
  });

  test('the markup is for search engines, and only the tenant\'s sites may frame it', async () => {
    const tenantId = s.t.tenant.tenantId;
    const res = await fetch(`${s.t.url}/ssr/comments?tenantId=${tenantId}&urlId=ssr-1`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /itemtype="https:\/\/schema.org\/Comment"/);
    assert.match(html, /itemprop="text"/);
    assert.doesNotMatch(html, /<script/);
    assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'self' localhost:\*/);

    const added = await s.t.api('POST', '/api/v1/domain-configs', { body: { domain: 'blog.example.com' } });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const framed = await fetch(`${s.t.url}/ssr/comments?tenantId=${tenantId}&urlId=ssr-1`);
    assert.match(framed.headers.get('content-security-policy') ?? '', /frame-ancestors blog\.example\.com(;|$)/);
    const elsewhere = await fetch(`${s.t.url}/ssr/comments?tenantId=${tenantId}&urlId=ssr-1`, { headers: { referer: 'https://evil.example.net/page' } });
    assert.equal(elsewhere.status, 403);

    // A form posted from another site is refused, and nothing is stored.
    const forged = await fetch(`${s.t.url}/ssr/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example.net' },
      body: new URLSearchParams({ tenantId, urlId: 'ssr-1', comment: 'forged', commenterName: 'Eve' }).toString(),
    });
    assert.equal(forged.status, 403);
    const read = await widget(s.t, 'GET', `/comments/${tenantId}`, { urlId: 'ssr-1' }, undefined, { origin: 'https://blog.example.com' });
    assert.ok(!read.body.comments.some((c: any) => c.commenterName === 'Eve'));
  });
});
