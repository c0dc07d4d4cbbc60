/**
 * The widget in real Chromium: deep replies collapsed behind "Show N replies" and expanded by
 * keyboard (and announced), `collapseReplies`; avatars with text alternatives, generated
 * initials, `hideAvatars`; badges awarded through the moderation API reaching an open widget
 * live.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seriousViolations, tabTo } from '../fixtures/widget-page.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { broadcast, commentData, secureSso, widget } from './public-comments-helpers.js';

WidgetScenario.describe(`the widget's replies, avatars and badges`, (s) => {
  /** Posts through the public API; answers the comment's id. */
  const post = async (urlId: string, text: string, extra: Record<string, unknown> = {}): Promise<string> => {
    const posted = await widget(s.t, 'POST', `/comments/${s.t.tenant.tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, text, extra));
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    return posted.body.comment._id as string;
  };

  test('replies deeper than the configured depth wait behind "Show N replies", opened and closed by keyboard', async () => {
    const urlId = 'deep-1';
    let parentId: string | null = null;
    for (let depth = 0; depth <= 4; depth++) parentId = await post(urlId, `Text ${depth}`, { commenterName: `Level ${depth}`, parentId });

    const page = await s.open(s.embed(urlId, { collapseRepliesDepth: 2 }, '/deep-1'));
    await page.getByRole('article', { name: 'Level 2' }).waitFor();
    assert.equal(await page.getByRole('article', { name: 'Level 3' }).count(), 0, 'replies of a depth-2 comment start collapsed');
    const show = page.getByRole('button', { name: 'Show 2 replies' });
    assert.equal(await show.getAttribute('aria-expanded'), 'false');

    await tabTo(page, show);
    await page.keyboard.press('Enter');
    await page.getByRole('article', { name: 'Level 4' }).waitFor();
    await page.getByRole('article', { name: 'Level 3' }).getByText('Text 3').waitFor();
    await page.getByRole('status').getByText('2 replies shown').waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'axe-core: the reply toggle');
    const hide = page.getByRole('button', { name: 'Hide replies' });
    assert.equal(await hide.getAttribute('aria-expanded'), 'true');
    // The focus stays on the toggle: Enter again closes what it opened.
    await tabTo(page, hide, 0);
    await page.keyboard.press('Enter');
    await show.waitFor();
    assert.equal(await page.getByRole('article', { name: 'Level 3' }).count(), 0);

    // FastComments' collapseReplies: the replies of root comments wait behind one button.
    const collapsed = await s.open(s.embed(urlId, { collapseReplies: true }, '/deep-1-collapsed'));
    await collapsed.getByRole('article', { name: 'Level 0' }).waitFor();
    assert.equal(await collapsed.getByRole('article').count(), 1);
    await collapsed.getByRole('button', { name: 'Show 4 replies' }).click();
    await collapsed.getByRole('article', { name: 'Level 2' }).waitFor();
    // Replies of depth 3 and deeper follow the default depth (3): Level 4 waits behind its own button.
    await collapsed.getByRole('button', { name: 'Show 1 replies' }).waitFor();
    assert.equal(await collapsed.getByRole('article', { name: 'Level 4' }).count(), 0);
  });

  test('avatars have text alternatives (or a generated initial); badges awarded by a moderator appear live with their names', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'badges-1';
    const created = await s.t.api<{ tenantBadge: Record<string, unknown> }>('POST', '/api/v1/tenant-badges', {
      body: { type: 4, name: 'Helpful', description: 'Given by hand for helpful answers', displayLabel: 'Helpful', backgroundColor: '#1b5e20', textColor: '#ffffff' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const badgeId = String(created.body.tenantBadge['_id'] ?? created.body.tenantBadge['id']);
    await post(urlId, 'No picture here', { commenterName: 'Cid' });
    const admin = secureSso(s.t.tenant.apiSecret, { id: 'boss', email: 'boss@example.com', username: 'Boss', isAdmin: true });

    const sso = JSON.parse(secureSso(s.t.tenant.apiSecret, { id: 'bea', email: 'bea@example.com', username: 'Bea', avatar: `${s.site.origin}/bea.png` }));
    const page = await s.open(s.embed(urlId, { sso }, '/badges-1'));
    await page.getByRole('textbox', { name: 'Write a comment…' }).fill('With a picture');
    await page.getByRole('button', { name: 'Post' }).click();
    const bea = page.getByRole('article', { name: 'Bea' });
    await bea.getByText('With a picture').waitFor();
    await bea.getByRole('img', { name: 'Picture of Bea' }).waitFor();
    const cid = page.getByRole('article', { name: 'Cid' });
    await cid.getByText('No picture here').waitFor();
    assert.equal(await cid.getByRole('img').count(), 0, 'a generated initial is decoration beside the written name');

    const read = await widget(s.t, 'GET', `/comments/${tenantId}`, { urlId });
    const mine = (read.body.comments as Array<Record<string, unknown>>).find((c) => c['commenterName'] === 'Bea')!;
    const awarded = await widget(s.t, 'PUT', '/auth/my-account/moderate-comments/award-badge', { tenantId, sso: admin, badgeId, commentId: String(mine['_id']) });
    assert.equal(awarded.status, 200, JSON.stringify(awarded.body));
    // The open widget shows it live, named by its label and described by its description.
    const badge = bea.getByRole('list', { name: 'Badges' }).getByRole('listitem').filter({ hasText: 'Helpful' });
    await badge.waitFor();
    assert.equal(await badge.getAttribute('title'), 'Given by hand for helpful answers');
    assert.deepEqual(await seriousViolations(page), [], 'axe-core: avatars, initials and badges');

    const hidden = await s.open(s.embed(urlId, { hideAvatars: true }, '/badges-1-hidden'));
    const seen = hidden.getByRole('article', { name: 'Bea' });
    await seen.getByRole('list', { name: 'Badges' }).getByText('Helpful').waitFor();
    assert.equal(await seen.getByRole('img').count(), 0, 'hideAvatars leaves pictures out');
  });
});
