/**
 * The moderation page's later parts, in real Chromium: another moderator's actions reach an open
 * page live (`moderation-updated`, also checked at the protocol level with moderation groups);
 * bulk bans with the bulk pre-ban summary and their undo; editing a comment's text, manual
 * badges and the trust factor from the context panel. Also: `comment/{id}` and `api/comments`
 * answer one shape, and login links opened in a browser land on a page or a safe redirect.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import WebSocket from 'ws';
import type { TestServer } from '../fixtures/server.js';
import type { Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { seriousViolations } from '../fixtures/widget-page.js';
import { call, linkIn, ok } from './identity-helpers.js';
import { good, MOD, mod } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { postComment } from './page-helpers.js';
import { commentData, widget } from './public-comments-helpers.js';
import { ModerationScenario } from './moderation-page-scenario.js';

type Json = Record<string, any>;

ModerationScenario.describe('the moderation page, more', 'more-mod', (s) => {
  let t: TestServer;
  let sink: SmtpSink;
  let tenantId: string;
  const { storage } = s;
  before(() => {
    ({ t, sink, tenantId } = s);
  });

  test('another moderator\'s approval, removal and edit reach an open page live; counts follow', async () => {
    const urlId = '/more-live';
    const one = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'First to be decided', { commenterName: 'Uma' }));
    const two = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Second to be decided', { commenterName: 'Vic' }));
    assert.deepEqual([one.status, two.status], [200, 200]);
    const a = await s.openModeration();
    const b = await s.openModeration();
    const pa = a.page;
    const uma = pa.getByRole('article', { name: 'Comment by Uma' }).filter({ hasText: 'First to be decided' });
    await uma.waitFor();
    const unreviewedTab = pa.getByRole('tab', { name: /^Unreviewed\D*\d+/ });
    await unreviewedTab.waitFor();
    const countBefore = Number(/(\d+)/.exec((await unreviewedTab.textContent()) ?? '')?.[1]);

    // B approves Uma's comment on B's page: it leaves A's unreviewed queue, announced, and the count drops.
    const onB = b.page.getByRole('article', { name: 'Comment by Uma' }).filter({ hasText: 'First to be decided' });
    await onB.getByRole('button', { name: 'Approve', exact: true }).click();
    await b.page.getByRole('status').filter({ hasText: 'Approved the comment by Uma.' }).waitFor();
    await uma.waitFor({ state: 'detached' });
    await pa.getByRole('status').filter({ hasText: 'Another moderator decided on the comment by Uma: it left this queue.' }).waitFor();
    await pa.getByRole('tab', { name: new RegExp(`^Unreviewed\\D*${countBefore - 1}\\b`) }).waitFor();

    // In "all", B's edit of Vic's text shows in place on A's page.
    await pa.getByRole('tab', { name: /^All comments/ }).click();
    // "All" has been read: Uma's approved comment is back in the list.
    await pa.getByRole('article', { name: 'Comment by Uma' }).waitFor();
    const vic = pa.getByRole('article', { name: 'Comment by Vic' });
    await vic.getByText('Second to be decided').waitFor();
    const bCookie = await s.cookieOf(b);
    good(await mod(t, bCookie, 'POST', `/set-comment-text/${String(two.body.comment._id)}`, {}, { comment: 'Second, edited by B' }));
    await vic.getByText('Second, edited by B').waitFor();
    await pa.getByRole('status').filter({ hasText: 'The comment by Vic was changed by another moderator.' }).waitFor();
    // And B's removal marks it removed there (removed comments stay under "all", with Restore).
    good(await mod(t, bCookie, 'POST', `/remove-comment/${String(two.body.comment._id)}`));
    await vic.getByText('Removed', { exact: true }).waitFor();
    await vic.getByRole('button', { name: 'Restore' }).waitFor();
  });

  test('the feed\'s moderation-updated frames: each action names the comment and its changed fields, within the moderator\'s groups', async () => {
    const feedUrl = `${t.url.replace('http', 'ws')}${MOD}/live`;
    const admin = await signIn(t, sink, { isCommentModeratorAdmin: true });
    const email = `more-grouped-${storage}@example.com`;
    const invited = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Grouped', email, moderationGroupIds: ['g1'] } })).moderator;
    const user = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: `more-grouped-${storage}`, email } })).tenantUser;
    ok(await call(t, 'POST', `/api/v1/tenant-users/${String(user['id'])}/send-login-link`));
    const login = await sink.waitFor((r: Received) => r.rcptTo.includes(email), 'the login link');
    const opened = await fetch(linkIn(login, '/auth/login-link/'));
    assert.equal(opened.status, 200);
    const groupedCookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    ok(await call(t, 'POST', `/api/v1/moderators/${String(invited['_id'])}/send-invite`, { query: { fromName: 'Boss' } }));
    const invite = await sink.waitFor((r: Received) => r.rcptTo.includes(email) && /moderator-invite/.test(String(r.mail.text ?? r.mail.html)), 'the invitation');
    assert.equal((await fetch(linkIn(invite, '/auth/moderator-invite/'))).status, 200);

    const openFeed = async (cookie: string) => {
      const ws = new WebSocket(feedUrl, { headers: { origin: t.url, cookie } });
      const frames: Json[] = [];
      ws.on('message', (data) => frames.push(JSON.parse(String(data))));
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const heard = (match: (f: Json) => boolean) =>
        new Promise<Json>((resolve) => {
          const check = () => {
            const frame = frames.find(match);
            if (frame) resolve(frame);
            else ws.once('message', () => setImmediate(check));
          };
          check();
        });
      return { ws, frames, heard };
    };
    const all = await openFeed(admin.cookie);
    const g1 = await openFeed(groupedCookie);
    try {
      const urlId = '/more-feed';
      const outside = await postComment(t, urlId, { comment: 'Updated in g2', moderationGroupIds: ['g2'] });
      const inside = await postComment(t, urlId, { comment: 'Updated in g1', moderationGroupIds: ['g1'] });
      const updated = (id: string) => (f: Json) => f.type === 'moderation-updated' && f.commentId === id;
      good(await mod(t, admin.cookie, 'POST', `/set-comment-spam-status/${outside._id}`, { spam: true }));
      good(await mod(t, admin.cookie, 'POST', `/set-comment-review-status/${inside._id}`, { reviewed: true }));
      const frame = await all.heard(updated(outside._id));
      assert.equal(frame.urlId, urlId);
      assert.ok(frame.changed.includes('isSpam'), JSON.stringify(frame));
      assert.deepEqual(Object.keys(frame).sort(), ['changed', 'commentId', 'type', 'urlId'], 'the comment\'s id and what changed, nothing else');
      assert.deepEqual((await all.heard(updated(inside._id))).changed, ['reviewed']);
      assert.deepEqual((await g1.heard(updated(inside._id))).changed, ['reviewed']);
      assert.equal(g1.frames.some((f) => f.commentId === outside._id), false, 'nothing outside the moderator\'s groups');
      // A flag and a vote adjustment are actions too.
      good(await mod(t, admin.cookie, 'POST', `/flag-comment/${inside._id}`));
      await all.heard((f) => updated(inside._id)(f) && f.changed.includes('flagCount'));
      good(await mod(t, admin.cookie, 'POST', `/adjust-comment-votes/${inside._id}`, {}, { adjustVoteAmount: 3 }));
      await g1.heard((f) => updated(inside._id)(f) && f.changed.includes('votes'));
    } finally {
      all.ws.close();
      g1.ws.close();
    }
  });

  test('bulk ban: the bulk pre-ban summary first, then each author banned; undo takes every ban back', async () => {
    const urlId = '/more-bulk';
    const ann = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Bulk one from Ann', { commenterName: 'Ann' }));
    const bob = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Bulk two from Bob', { commenterName: 'Bob' }));
    assert.deepEqual([ann.status, bob.status], [200, 200]);
    const sessions = [ann.body.user.sessionId as string, bob.body.user.sessionId as string];
    const moderator = await s.openModeration();
    const m = moderator.page;
    await m.getByRole('article', { name: 'Comment by Ann' }).waitFor();
    await m.getByRole('article', { name: 'Comment by Bob' }).waitFor();
    await m.getByRole('checkbox', { name: 'Select the comment by Ann' }).check();
    await m.getByRole('checkbox', { name: 'Select the comment by Bob' }).check();
    await m.getByText('2 selected').waitFor();
    await m.getByRole('button', { name: 'Ban authors' }).click();
    const dialog = m.getByRole('dialog', { name: 'Ban the authors of the selection (2)?' });
    await dialog.getByText(/^2 selected comments; their authors wrote \d+ comments in all/).waitFor();
    assert.deepEqual(await seriousViolations(m, null), [], 'the bulk ban dialog');
    const posting = (i: number, text: string) => widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId: sessions[i]! }, commentData(urlId, text, { commenterName: i === 0 ? 'Ann' : 'Bob' }));
    assert.equal((await posting(0, 'Summary bans nobody')).status, 200, 'the summary bans nobody');
    // It arrives in the queue live (announced) before the ban, so its announcement cannot follow the ban's.
    await m.getByText('Summary bans nobody').waitFor();
    await dialog.getByRole('button', { name: 'Ban', exact: true }).click();
    await m.getByRole('status').filter({ hasText: 'Banned 2 authors.' }).waitFor();
    for (const i of [0, 1]) {
      const refused = await posting(i, 'Still here?');
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'banned');
    }
    await m.getByRole('button', { name: 'Undo the 2 bans' }).click();
    await m.getByRole('status').filter({ hasText: 'The ban was undone.' }).waitFor();
    for (const i of [0, 1]) assert.equal((await posting(i, 'Back again')).status, 200, 'the undo lifted each ban');
  });

  test('the context panel edits the text, gives and removes a manual badge and sets the trust factor, by keyboard, with errors in words', async () => {
    const manual = ok(await call<{ tenantBadge: Json }>(t, 'POST', '/api/v1/tenant-badges', { body: { type: 4, name: 'Helpful', description: 'Given by hand', displayLabel: 'Helpful' } })).tenantBadge;
    const badgeId = String(manual['_id'] ?? manual['id']);
    const userId = `${tenantId}:more-author`;
    ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'more-author', username: 'Wren', email: 'wren@example.com' } }));
    const c = await postComment(t, '/more-tools', { userId, commenterName: 'Wren', comment: 'Tools are needed hree' });
    const moderator = await s.openModeration();
    const m = moderator.page;
    const cookie = await s.cookieOf(moderator);
    await m.getByRole('tab', { name: /^All comments/ }).click();
    const card = m.getByRole('article', { name: 'Comment by Wren' });
    await card.focus();
    const context = m.getByRole('complementary', { name: 'Context of the comment by Wren' });

    // The text: reached with c from the focused comment, opened with Enter; an empty text is refused in words.
    const editButton = context.getByRole('button', { name: 'Edit the text' });
    await editButton.waitFor();
    await m.keyboard.press('c');
    await m.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'edit-start');
    await m.keyboard.press('Enter');
    const text = context.getByRole('textbox', { name: 'Text of the comment' });
    await m.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'edit-text');
    assert.equal(await text.inputValue(), 'Tools are needed hree');
    await context.getByRole('spinbutton', { name: 'Trust factor set by hand (0 to 100)' }).waitFor();
    assert.deepEqual(await seriousViolations(m, null), [], 'the context panel with its tools open');
    await text.fill('   ');
    await context.getByRole('button', { name: 'Save the text' }).click();
    await context.getByRole('alert').filter({ hasText: 'The text cannot be empty.' }).waitFor();
    await text.fill('Tools are needed here');
    await m.keyboard.press('Tab');
    await m.keyboard.press('Enter');
    await m.getByRole('status').filter({ hasText: 'Saved the new text.' }).waitFor();
    await card.getByText('Tools are needed here').waitFor();
    assert.equal(good(await mod(t, cookie, 'GET', `/get-comment-text/${c._id}`)).comment, 'Tools are needed here');

    // A manual badge, given and removed.
    await context.getByRole('combobox', { name: 'Badge to give' }).selectOption({ label: 'Helpful' });
    await context.getByRole('button', { name: 'Give the badge' }).click();
    await m.getByRole('status').filter({ hasText: 'Gave the badge Helpful.' }).waitFor();
    await context.getByRole('list', { name: 'Badges the author holds' }).getByText('Helpful').waitFor();
    assert.deepEqual(good(await mod(t, cookie, 'GET', '/get-manual-badges-for-user', { badgesUserId: userId })).badges.map((b: Json) => b.badgeId), [badgeId]);
    await context.getByRole('button', { name: 'Remove Helpful' }).click();
    await m.getByRole('status').filter({ hasText: 'Removed the badge Helpful.' }).waitFor();
    await context.getByText('No badges given by hand.').waitFor();
    assert.deepEqual(good(await mod(t, cookie, 'GET', '/get-manual-badges-for-user', { badgesUserId: userId })).badges, []);

    // The trust factor: out of range is refused in words and nothing changes; in range is saved.
    const trust = context.getByRole('spinbutton', { name: 'Trust factor set by hand (0 to 100)' });
    await trust.fill('150');
    await context.getByRole('button', { name: 'Save the trust factor' }).click();
    await context.getByRole('alert').filter({ hasText: 'The trust factor is a number from 0 to 100.' }).waitFor();
    assert.equal(good(await mod(t, cookie, 'GET', '/get-trust-factor', { userId })).manualTrustFactor, undefined);
    await trust.fill('75');
    await trust.press('Enter');
    await m.getByRole('status').filter({ hasText: 'Set the trust factor to 75.' }).waitFor();
    assert.equal(good(await mod(t, cookie, 'GET', '/get-trust-factor', { userId })).manualTrustFactor, 75);
    const logs = good(await mod(t, cookie, 'GET', `/logs/${c._id}`)).logs.map((l: Json) => l.actionName);
    assert.deepEqual(logs, ['edited', 'badge-awarded', 'badge-removed'], 'each action is in the comment\'s log');
  });

  test('comment/{id} answers the same ModerationAPIComment as api/comments, with every flag', async () => {
    const admin = await signIn(t, sink, { isCommentModeratorAdmin: true });
    const c = await postComment(t, '/more-shape', { comment: 'One shape for both reads' });
    const one = good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`)).comment as Json;
    const listed = (good(await mod(t, admin.cookie, 'GET', '/api/comments', { filters: JSON.stringify({ urlId: '/more-shape' }) })).comments as Json[]).find((x) => x._id === c._id);
    assert.deepEqual(one, listed);
    for (const flag of ['reviewed', 'isSpam', 'approved', 'isDeleted', 'isBannedUser', 'isPinned', 'isLocked', 'verified']) assert.equal(typeof one[flag], 'boolean', flag);
    assert.equal(one['reviewed'], false);
    assert.equal(one['flagCount'], 0);
  });

  test('a login link opened by a browser: a safe redirect, else the moderation page or a signed-in page; API clients keep JSON', async () => {
    const page = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
    const open = (link: string, headers: Record<string, string> = page) => fetch(link, { headers, redirect: 'manual' });

    const moderatorLink = await open(await s.loginLink({ isCommentModeratorAdmin: true }));
    assert.equal(moderatorLink.status, 303);
    assert.equal(moderatorLink.headers.get('location'), MOD, 'a moderator lands on the moderation page');
    assert.match(moderatorLink.headers.get('set-cookie') ?? '', /^fc_tenant_session=/);

    const plain = await open(await s.loginLink({ isAPIAdmin: true }), { ...page, 'accept-language': 'fr-FR' });
    assert.equal(plain.status, 200);
    assert.match(plain.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await plain.text(), /Vous êtes connecté en tant que more-mod-\d+-/);

    // This server by the name its links use (the host the browser asks).
    const sameLink = await s.loginLink({ isAPIAdmin: true }, 'https://placeholder.invalid/');
    const sameServer = `${new URL(sameLink).origin}/auth/my-account/moderate-comments?locale=de`;
    const toSame = await open(await s.loginLink({ isAPIAdmin: true }, sameServer));
    assert.deepEqual([toSame.status, toSame.headers.get('location')], [303, sameServer]);

    const evil = await open(await s.loginLink({ isCommentModeratorAdmin: true }, 'https://evil.example/steal'));
    assert.deepEqual([evil.status, evil.headers.get('location')], [303, MOD], 'never an open redirect');

    ok(await call(t, 'POST', '/api/v1/domain-configs', { body: { domain: 'more-site.example' } }));
    try {
      const onSite = 'https://blog.more-site.example/after-login';
      const toSite = await open(await s.loginLink({ isAPIAdmin: true }, onSite));
      assert.deepEqual([toSite.status, toSite.headers.get('location')], [303, onSite], 'the tenant\'s own domains are safe targets');
    } finally {
      // A configured domain makes the tenant admit only its sites: the other tests run from localhost.
      ok(await call(t, 'DELETE', '/api/v1/domain-configs/more-site.example'));
    }

    // A link that cannot be used is explained on a page, with the refusal's status; API clients get the error as JSON.
    const usedLink = await s.loginLink({ isAPIAdmin: true });
    assert.equal((await open(usedLink)).status, 200);
    const again = await open(usedLink);
    assert.equal(again.status, 410);
    assert.match(again.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await again.text(), /This link was already used/);
    const againApi = await open(usedLink, { accept: 'application/json' });
    assert.deepEqual([againApi.status, ((await againApi.json()) as Json)['code']], [410, 'login-link-used']);
    const unknown = await open(`${new URL(usedLink).origin}/auth/login-link/${'c'.repeat(43)}`, { ...page, 'accept-language': 'de' });
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /Diesen Link gibt es nicht/);

    const api = await open(await s.loginLink({ isCommentModeratorAdmin: true }, 'https://evil.example/steal'), { accept: 'application/json' });
    assert.equal(api.status, 200);
    const body = (await api.json()) as Json;
    assert.equal(body['redirectURL'], 'https://evil.example/steal', 'API clients get the link as it was made');
    assert.equal(body['tenantId'], tenantId);
  });
});
