/**
 * One browser test for each official framework wrapper (unmodified, from npm): bundled with its
 * framework into a host page that loads this server's script first, it renders our widget, a
 * reader posts through it, and a config change made through the framework (a button of the
 * host app that replaces the config object) reaches the widget by the wrapper's `update`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { wrapperPage } from '../fixtures/wrapper-page.js';
import { broadcast, commentData, widget } from './public-comments-helpers.js';

/**
 * How a config change reaches the widget: the wrapper calls the handle's `update`, or (where the
 * wrapper never calls it) the host app re-creates the wrapper's component with the new config.
 */
export type ConfigChange = 'update' | 'remount';

/**
 * Registers the test for a wrapper. `bundle` answers the app: it mounts the wrapper with
 * `window.widgetConfig`, and its button "Dark theme" hands the wrapper a new config object
 * with `hasDarkBackground: true`.
 */
export function wrapperSuite(wrapper: string, bundle: () => Promise<string>, change: ConfigChange = 'update'): void {
  /** The wrapper's app, bundled once before the tests. */
  class WrapperSite extends WidgetScenario {
    app = '';
    protected override async setUp(): Promise<void> {
      this.app = await bundle();
    }
  }

  WrapperSite.describe(`the ${wrapper} wrapper`, (s) => {
    test('the unmodified wrapper renders our widget, posts through it, and passes a config change on by update', async () => {
      const tenantId = s.t.tenant.tenantId;
      const urlId = `${wrapper}-1`;
      const seeded = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, `Seeded before ${wrapper} mounted`, { commenterName: 'Seeder' }));
      assert.equal(seeded.status, 200);

      const { page, requested, errors } = await s.watchedPage();
      await page.goto(s.site.page(`/${wrapper}`, wrapperPage(s.t.url, `A ${wrapper} blog`, { tenantId, urlId, hasDarkBackground: false }, s.app)));

      await page.getByRole('article', { name: 'Seeder' }).getByText(`Seeded before ${wrapper} mounted`).waitFor();
      await page.getByRole('textbox', { name: 'Write a comment…' }).fill(`Posted from a ${wrapper} page`);
      await page.getByLabel('Your name').fill('Fra');
      await page.getByRole('button', { name: 'Post' }).click();
      await page.getByRole('article', { name: 'Fra' }).getByText(`Posted from a ${wrapper} page`).waitFor();

      const stored = await widget(s.t, 'GET', `/comments/${tenantId}`, { urlId });
      assert.equal(stored.status, 200);
      const texts = (stored.body.comments as Array<{ commenterName: string; commentHTML: string }>).map((c) => `${c.commenterName}: ${c.commentHTML}`);
      assert.ok(texts.some((s) => s.includes(`Fra: Posted from a ${wrapper} page`)), texts.join('\n'));

      // A config change through the framework: the widget turns dark in place.
      assert.equal(await page.locator('section.fc.dark').count(), 0);
      await page.getByRole('button', { name: 'Dark theme' }).click();
      await page.locator('section.fc.dark').waitFor();
      const calls = await page.evaluate(() => (globalThis as unknown as { wrapperCalls: { mount: number; update: number } }).wrapperCalls);
      if (change === 'update') {
        assert.equal(calls.mount, 1, JSON.stringify(calls));
        assert.ok(calls.update >= 1, JSON.stringify(calls));
      } else {
        // A second element and a second mount; the first element left the page.
        assert.deepEqual(calls, { mount: 2, update: 0 });
        assert.equal(await page.locator('section.fc').count(), 1);
      }
      // Still the same thread, the reader's comment in it.
      await page.getByRole('article', { name: 'Fra' }).getByText(`Posted from a ${wrapper} page`).waitFor();

      assert.ok(!requested.some((u) => u.includes('fastcomments.com')), requested.join('\n'));
      assert.deepEqual(errors, []);
    });
  });
}
