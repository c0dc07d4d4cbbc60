/**
 * The widget in real Chromium for one reader at a time, browsing a thread: paging, the three
 * orders (an answer of an earlier order landing late never replaces a later one), report and
 * block, and axe-core in the light and dark themes. Kept apart from widget-identity.test.ts so
 * neither file nears the runner's per-file time limit on a loaded machine.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';
import { repoFile } from '../fixtures/paths.js';
import { seriousViolations } from '../fixtures/widget-page.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { broadcast, commentData, widget } from './public-comments-helpers.js';

/** Screenshots (test output). */
const SHOTS = repoFile('dist/test-output/widget');

WidgetScenario.describe(`the widget's thread browsing`, (s) => {
  test('paging with "Show more comments", the three orders, report and block', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'paging-1';
    for (let i = 1; i <= 32; i++) {
      const posted = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, `Number ${i}`, { commenterName: `Writer ${i}` }));
      assert.equal(posted.status, 200);
    }
    const page = await s.open(s.embed(urlId, { defaultSortDirection: 'OF' }));
    await page.getByRole('article', { name: 'Writer 30', exact: true }).waitFor();
    assert.equal(await page.getByRole('article').count(), 30);
    assert.equal(await page.getByRole('article', { name: 'Writer 31' }).count(), 0);
    await page.getByRole('button', { name: 'Show more comments' }).click();
    await page.getByRole('article', { name: 'Writer 32' }).waitFor();
    assert.equal(await page.getByRole('article').count(), 32);
    assert.equal(await page.getByRole('article').first().getAttribute('aria-labelledby'), await page.getByRole('article', { name: 'Writer 1', exact: true }).getAttribute('aria-labelledby'));

    await page.getByLabel('Sort by').selectOption({ label: 'Newest first' });
    await page.getByRole('article').first().getByText('Number 32').waitFor();
    await page.getByLabel('Sort by').selectOption({ label: 'Most relevant' });
    const first = page.getByRole('article', { name: 'Writer 5', exact: true });
    await first.getByRole('button', { name: 'Vote up' }).click();
    await first.getByLabel('1 votes').waitFor();
    // The answer of the earlier sort is held until the later one is shown, so it lands last:
    // the widget must keep the order the reader asked for last.
    const oldest = (address: string) => {
      const u = new URL(address);
      return u.pathname === `/comments/${tenantId}` && u.searchParams.get('urlId') === urlId && u.searchParams.get('direction') === 'OF';
    };
    const held = (u: URL) => oldest(u.href);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(held, async (route) => {
      await released;
      await route.continue();
    });
    const lateAnswer = page.waitForResponse((r) => oldest(r.url()));
    await page.getByLabel('Sort by').selectOption({ label: 'Oldest first' });
    await page.getByLabel('Sort by').selectOption({ label: 'Most relevant' });
    await page.getByRole('article').first().getByText('Number 5').waitFor();
    release();
    await (await lateAnswer).finished();
    await page.unroute(held);
    await page.getByRole('button', { name: 'Show more comments' }).click();
    await page.getByRole('article').nth(31).waitFor();
    assert.equal(await page.getByRole('article').count(), 32);
    assert.equal(await page.getByRole('article').first().getByText('Number 5').count(), 1);

    // A permalink to a comment of the second page opens that page and focuses it.
    const ids = (await widget(s.t, 'GET', `/comments/${tenantId}`, { urlId, direction: 'OF', page: 1 })).body.comments.map((c: any) => c._id);
    const permalink = await s.open(s.embed(urlId, { defaultSortDirection: 'OF', jumpToId: ids[1] }));
    const target = permalink.getByRole('article', { name: 'Writer 32' });
    await target.waitFor();
    await permalink.waitForFunction(() => (globalThis as any).document.getElementById('comments').shadowRoot.activeElement?.tagName === 'ARTICLE');
    assert.equal(await target.evaluate((el) => el === (el.getRootNode() as any).activeElement), true);

    const other = page.getByRole('article', { name: 'Writer 7', exact: true });
    await other.getByRole('button', { name: 'Report' }).click();
    await other.getByRole('button', { name: 'Report', pressed: true }).waitFor();
    await other.getByRole('button', { name: 'Block this user' }).click();
    await other.getByRole('button', { name: 'Unblock this user', pressed: true }).waitFor();
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`axe-core finds no serious or critical violation in the ${scheme} theme`, async () => {
      const url = s.embed(`axe-${scheme}`);
      const page = await s.open(url, scheme);
      await page.getByRole('textbox', { name: 'Write a comment…' }).fill('Checked by axe');
      await page.getByLabel('Your name').fill('Axel');
      await page.getByRole('button', { name: 'Post' }).click();
      await page.getByRole('article', { name: 'Axel' }).getByRole('button', { name: 'Reply' }).click();
      const region = page.getByRole('region', { name: /Comments/ });
      const background = await region.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor as string);
      assert.equal(background === 'rgb(255, 255, 255)', scheme === 'light', `background ${background} in the ${scheme} theme`);
      const violations = await seriousViolations(page);
      assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));
      mkdirSync(SHOTS, { recursive: true });
      await page.locator('#comments').screenshot({ path: `${SHOTS}/axe-${scheme}.png` });
    });
  }
});
