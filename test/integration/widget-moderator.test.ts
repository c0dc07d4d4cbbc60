/**
 * The widget's moderation menu in real Chromium: a secure single sign-on moderator approves a
 * held comment and another reader's widget shows it live; the moderator bans an author, whose
 * next post is refused in words; readers who do not moderate get no menu.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seriousViolations, tabTo } from '../fixtures/widget-page.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { broadcast, commentData, secureSso, widget } from './public-comments-helpers.js';

WidgetScenario.describe(`the widget's moderation menu`, (s) => {
  const moderatorSso = () => JSON.parse(secureSso(s.t.tenant.apiSecret, { id: 'mia', email: 'mia@example.com', username: 'Mia', isModerator: true }));

  test('a moderator approves a held comment by keyboard; another reader sees it live; readers get no menu', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'held-1';
    assert.equal((await s.t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { commentsRequireApproval: true } })).status, 200);
    try {
      const reader = await s.open(s.embed(urlId, {}, '/held-1-reader'));
      await reader.getByText('No comments yet. Be the first!').waitFor();
      const held = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Please approve me', { commenterName: 'Ann' }));
      assert.equal(held.status, 200, JSON.stringify(held.body));
      assert.equal(held.body.comment.approved, false);

      const mod = await s.open(s.embed(urlId, { sso: moderatorSso() }, '/held-1-mod'));
      const seen = mod.getByRole('article', { name: 'Ann' });
      await seen.getByText('Awaiting approval').waitFor();
      const menu = seen.getByRole('button', { name: 'Moderate' });
      await tabTo(mod, menu);
      await mod.keyboard.press('Enter');
      const actions = mod.getByRole('group', { name: 'Moderation of the comment by Ann' });
      await tabTo(mod, actions.getByRole('button', { name: 'Approve' }));
      await mod.keyboard.press('Enter');
      await actions.getByRole('button', { name: 'Unapprove' }).waitFor();
      assert.equal(await seen.getByText('Awaiting approval').count(), 0);
      assert.deepEqual(await seriousViolations(mod), [], 'axe-core: the open menu');
      // Escape closes the menu and gives the focus back to its button.
      await mod.keyboard.press('Escape');
      await tabTo(mod, menu, 0);
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');

      await reader.getByRole('button', { name: 'Show 1 new comments' }).click();
      await reader.getByRole('article', { name: 'Ann' }).getByText('Please approve me').waitFor();
      assert.equal(await reader.getByRole('button', { name: 'Moderate' }).count(), 0, 'an anonymous reader gets no menu');
    } finally {
      await s.t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { commentsRequireApproval: false } });
    }
    const plain = JSON.parse(secureSso(s.t.tenant.apiSecret, { id: 'pat', email: 'pat@example.com', username: 'Pat' }));
    const signedOn = await s.open(s.embed(urlId, { sso: plain }, '/held-1-signed'));
    await signedOn.getByRole('article', { name: 'Ann' }).getByText('Please approve me').waitFor();
    assert.equal(await signedOn.getByRole('button', { name: 'Moderate' }).count(), 0, 'a signed-on reader who does not moderate gets no menu');
  });

  test('a moderator bans an author from the menu; the author\'s next post is refused in words', async () => {
    const urlId = 'ban-1';
    const author = await s.open(s.embed(urlId, {}, '/ban-1-author'));
    await author.getByRole('textbox', { name: 'Write a comment…' }).fill('Buy my stuff');
    await author.getByLabel('Your name').fill('Dan');
    await author.getByRole('button', { name: 'Post' }).click();
    await author.getByRole('article', { name: 'Dan' }).getByText('Buy my stuff').waitFor();

    const mod = await s.open(s.embed(urlId, { sso: moderatorSso() }, '/ban-1-mod'));
    const seen = mod.getByRole('article', { name: 'Dan' });
    await seen.getByRole('button', { name: 'Moderate' }).click();
    await seen.getByRole('button', { name: 'Ban user' }).click();
    await seen.getByText('Author banned').waitFor();
    assert.equal(await seen.getByRole('button', { name: 'Ban user' }).count(), 0);

    await author.getByRole('textbox', { name: 'Write a comment…' }).fill('Still here?');
    await author.getByRole('button', { name: 'Post' }).click();
    await author.getByRole('alert').getByText('You are banned from commenting on this site.').waitFor();
    assert.equal(await author.getByText('Still here?', { exact: true }).count(), 0, 'nothing was posted');
  });
});
