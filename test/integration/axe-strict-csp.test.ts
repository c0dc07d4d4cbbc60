/**
 * The shared axe-core helper (test/fixtures/widget-page.ts) on a page whose
 * Content-Security-Policy admits no inline script, as the moderation page's: axe still runs in
 * real Chromium, on the whole page or on one element, and still finds what it should.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openReader } from '../fixtures/browser.js';
import { seriousViolations } from '../fixtures/widget-page.js';

const STRICT = "default-src 'none'; script-src 'none'; style-src 'none'";

/** One clean element, and one image without a text alternative (axe's critical `image-alt`). */
const HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Strict</title>
<script>window.inlineRan = true;</script></head>
<body><main><h1>Strict</h1><div id="clean"><p>Plain text.</p></div>
<div id="broken"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10"></div></main></body></html>`;

test('axe runs under a policy that admits no inline script, on the whole page and on one element', async () => {
  const reader = await openReader('about:blank');
  try {
    const page = reader.page;
    await page.route('http://strict.test/', (route) =>
      route.fulfill({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': STRICT }, body: HTML }),
    );
    await page.goto('http://strict.test/');
    // The policy is in force: the page's own inline script did not run.
    assert.equal(await page.evaluate(() => (globalThis as { inlineRan?: boolean }).inlineRan), undefined);

    const whole = await seriousViolations(page, null);
    assert.deepEqual(whole.map((v) => v.id), ['image-alt']);
    assert.deepEqual(await seriousViolations(page, '#clean'), []);
    const scoped = await seriousViolations(page, '#broken');
    assert.deepEqual(scoped.map((v) => [v.id, v.nodes]), [['image-alt', ['["img"]']]]);
  } finally {
    await reader.close();
  }
});
