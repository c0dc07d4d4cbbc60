/**
 * The moderation page in real Chromium: a moderator signs in by a login link, approves a pending
 * comment and a reader's widget (another browser) shows it live; a new comment arrives in the
 * queue live, and the moderator bans its author from there (the pre-ban summary shown first),
 * after which the author's next post is refused. Also: keyboard-only moderation, axe-core, who
 * may open the page, and the moderators' live feed at the protocol level.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { embedPage, HostSite } from '../fixtures/browser.js';
import type { TestServer } from '../fixtures/server.js';
import type { Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { seriousViolations, tabTo } from '../fixtures/widget-page.js';
import { call, linkIn, ok } from './identity-helpers.js';
import { good, MOD, mod, no } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { postComment } from './page-helpers.js';
import { commentData, widget } from './public-comments-helpers.js';
import { ModerationScenario } from './moderation-page-scenario.js';

type Json = Record<string, any>;

ModerationScenario.describe('the moderation page', 'page-mod', (s) => {
  let t: TestServer;
  let sink: SmtpSink;
  let tenantId: string;
  const { storage } = s;
  let site: HostSite;
  before(async () => {
    ({ t, sink, tenantId } = s);
    site = await HostSite.start();
  });
  after(async () => {
    await site.close();
  });

  test('approve a pending comment: a reader sees it live; a new comment arrives in the queue and its author is banned from there', async () => {
    const urlId = '/page-moderated';
    const readerPage = site.page(urlId, embedPage(t.url, { tenantId, urlId, apiHost: t.url }));
    const reader = await s.open(readerPage);
    await reader.page.getByText('No comments yet. Be the first!').waitFor();

    // The author writes through the public API; the tenant holds it for approval.
    const first = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Please let me in'));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.comment.approved, false);
    const sessionId = first.body.user.sessionId as string;

    const moderator = await s.openModeration();
    const m = moderator.page;
    const pending = m.getByRole('article', { name: 'Comment by Reader' }).filter({ hasText: 'Please let me in' });
    await pending.getByText('Pending approval').waitFor();
    await pending.getByRole('button', { name: 'Approve', exact: true }).click();
    await m.getByRole('status').filter({ hasText: 'Approved the comment by Reader.' }).waitFor();
    // Approved means reviewed: it leaves the unreviewed queue.
    await pending.waitFor({ state: 'detached' });

    // The reader's widget, in another browser, shows it without a reload.
    await reader.page.getByRole('button', { name: /1 new comment/ }).click();
    await reader.page.getByText('Please let me in').waitFor();

    // The author writes again: it arrives in the moderator's queue live.
    const second = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId }, commentData(urlId, 'Buy cheap watches now'));
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const spam = m.getByRole('article', { name: 'Comment by Reader' }).filter({ hasText: 'Buy cheap watches now' });
    await spam.waitFor();
    await m.getByRole('status').filter({ hasText: 'New comment from Reader.' }).waitFor();

    // Ban from the queue: the pre-ban summary comes first, and nothing happens until confirmed.
    await spam.getByRole('button', { name: 'Ban user' }).click();
    const dialog = m.getByRole('dialog', { name: 'Ban Reader?' });
    await dialog.getByText('2 comments by this person, under the names: Reader.').waitFor();
    const before = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId }, commentData(urlId, 'Not banned yet'));
    assert.equal(before.status, 200, 'the summary bans nobody');
    await dialog.getByRole('button', { name: 'Ban', exact: true }).click();
    await m.getByRole('status').filter({ hasText: 'Banned Reader.' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });

    const refused = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId }, commentData(urlId, 'Let me back in'));
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'banned');
    const cookie = await s.cookieOf(moderator);
    assert.equal(good(await mod(t, cookie, 'GET', `/comment/${String(second.body.comment._id)}`)).comment.isBannedUser, true);
    const logs = good(await mod(t, cookie, 'GET', `/logs/${String(first.body.comment._id)}`)).logs as Json[];
    assert.deepEqual(logs.map((l) => l.actionName).slice(0, 1), ['approved'], 'the approval is in the comment\'s log');
  });

  test('keyboard only: search, move with j, approve with a; the context shows the log', async () => {
    const urlId = '/page-keyboard';
    const one = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'keyboard first words', { commenterName: 'Kim' }));
    const two = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'keyboard second words', { commenterName: 'Lee' }));
    assert.deepEqual([one.status, two.status], [200, 200]);
    const moderator = await s.openModeration();
    const m = moderator.page;

    await m.keyboard.press('/');
    await m.keyboard.type('keyboard');
    await m.keyboard.press('Enter');
    const lee = m.getByRole('article', { name: 'Comment by Lee' });
    const kim = m.getByRole('article', { name: 'Comment by Kim' });
    await kim.waitFor();
    await lee.waitFor();
    // Newest first: Lee's comment is the first, and the one Tab reaches.
    await tabTo(m, lee);
    await m.keyboard.press('j');
    await m.waitForFunction(() => (globalThis as any).document.activeElement?.getAttribute('aria-labelledby')?.startsWith('h-'));
    assert.equal(await kim.evaluate((el) => (globalThis as any).document.activeElement === el), true, 'j moves the focus to the next comment');
    await m.getByRole('complementary', { name: 'Context of the comment by Kim' }).getByText('No moderation yet.').waitFor();

    await m.keyboard.press('a');
    await m.getByRole('status').filter({ hasText: 'Approved the comment by Kim.' }).waitFor();
    const cookie = await s.cookieOf(moderator);
    assert.equal(good(await mod(t, cookie, 'GET', `/comment/${String(one.body.comment._id)}`)).comment.approved, true);
    assert.equal(good(await mod(t, cookie, 'GET', `/comment/${String(two.body.comment._id)}`)).comment.approved, false, 'only the focused comment');
    // Kim's comment left the queue; the focus moved on to the one left, which stays pending.
    await kim.waitFor({ state: 'detached' });
    assert.equal(await lee.evaluate((el) => (globalThis as any).document.activeElement === el), true);

    // Select it with x and mark the selection reviewed with the bulk action.
    await m.keyboard.press('x');
    await m.getByRole('checkbox', { name: 'Select the comment by Lee' }).isChecked();
    await m.getByText('1 selected').waitFor();
    await m.getByRole('button', { name: 'Mark selected reviewed' }).click();
    await m.getByRole('status').filter({ hasText: 'Done for 1 comments.' }).waitFor();
    assert.equal(good(await mod(t, cookie, 'GET', `/comment/${String(two.body.comment._id)}`)).comment.reviewed, true);
  });

  test('the context of the focused comment: its parent, its page, the author\'s comments, its log', async () => {
    const urlId = '/page-context';
    const parent = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'The parent says hello', { commenterName: 'Pat' }));
    const reply = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'The reply answers', { commenterName: 'Quinn', parentId: parent.body.comment._id }));
    const again = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId: reply.body.user.sessionId }, commentData(urlId, 'Quinn once more', { commenterName: 'Quinn' }));
    assert.deepEqual([parent.status, reply.status, again.status], [200, 200, 200]);
    const moderator = await s.openModeration();
    const m = moderator.page;
    await m.getByRole('tab', { name: /^All comments/ }).click();
    await m.getByRole('tab', { name: /^All comments/, selected: true }).waitFor();
    const card = m.getByRole('article', { name: 'Comment by Quinn' }).filter({ hasText: 'The reply answers' });
    await card.focus();
    const context = m.getByRole('complementary', { name: 'Context of the comment by Quinn' });
    await context.getByText('The parent says hello').waitFor();
    await context.getByText('2 comments by this person, under the names: Quinn.').waitFor();
    assert.equal(await context.getByRole('link', { name: 'Open the page A page' }).getAttribute('href'), `https://blog.example.com${urlId}`);
    await context.getByText('No moderation yet.').waitFor();
    await card.getByRole('button', { name: 'Mark reviewed' }).click();
    await m.getByRole('status').filter({ hasText: 'Marked the comment by Quinn reviewed.' }).waitFor();
    await context.getByText(/: marked-reviewed$/).waitFor();
  });

  test('export of the queue: started, followed, downloadable', async () => {
    const moderator = await s.openModeration();
    const m = moderator.page;
    await m.getByRole('tab', { name: /^All comments/ }).click();
    await m.getByRole('button', { name: 'Export the comments of this queue' }).click();
    await m.getByRole('status').filter({ hasText: /The export of \d+ comments is ready\./ }).waitFor();
    const link = m.getByRole('link', { name: 'Download CSV' });
    const href = await link.getAttribute('href');
    assert.ok(href?.includes('format=csv'));
    const csv = await m.evaluate(async (url) => (await fetch(url as string)).text(), href);
    assert.match(csv, /^id,urlId,url,date/);
  });

  test('axe-core finds no serious or critical violation on the page, nor in the ban dialog', async () => {
    const urlId = '/page-axe';
    assert.equal((await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'For the accessibility check', { commenterName: 'Axe' }))).status, 200);
    const moderator = await s.openModeration();
    const m = moderator.page;
    const card = m.getByRole('article', { name: 'Comment by Axe' });
    await card.waitFor();
    await card.focus();
    await m.getByRole('complementary', { name: 'Context of the comment by Axe' }).getByText('No moderation yet.').waitFor();
    assert.deepEqual(await seriousViolations(m, null), []);
    await m.keyboard.press('b');
    await m.getByRole('dialog', { name: 'Ban Axe?' }).getByText(/1 comments by this person/).waitFor();
    assert.deepEqual(await seriousViolations(m, null), []);
    await m.keyboard.press('Escape');
    await m.getByRole('dialog').waitFor({ state: 'hidden' });
  });

  test('an anonymous visitor and a signed-in user without the permission cannot use it; the page has secure headers', async () => {
    const anonymous = await s.open(`${t.url}${MOD}`);
    await anonymous.page.getByRole('heading', { name: 'Sign in to moderate' }).waitFor();
    const anonymousAnswer = await fetch(`${t.url}${MOD}`);
    assert.equal(anonymousAnswer.status, 401);
    assert.match(anonymousAnswer.headers.get('content-type') ?? '', /text\/html/);
    no(await mod(t, null, 'GET', '/api/comments'), 401, 'not-signed-in');

    const plain = await signIn(t, sink, { isAPIAdmin: true });
    const refused = await fetch(`${t.url}${MOD}`, { headers: { cookie: plain.cookie, 'accept-language': 'de-DE,de;q=0.9' } });
    assert.equal(refused.status, 403);
    const text = await refused.text();
    assert.match(text, /Du kannst diese Website nicht moderieren/, 'in the reader\'s language');
    assert.match(text, /<html lang="de"/);
    no(await mod(t, plain.cookie, 'GET', '/api/comments'), 403, 'moderation-forbidden');

    const admin = await signIn(t, sink, { isCommentModeratorAdmin: true });
    const shell = await fetch(`${t.url}${MOD}?locale=fr_fr`, { headers: { cookie: admin.cookie } });
    assert.equal(shell.status, 200);
    const csp = shell.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline script may run');
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(shell.headers.get('x-frame-options'), 'DENY');
    assert.equal(shell.headers.get('cache-control'), 'no-store');
    const html = await shell.text();
    assert.match(html, /<html lang="fr" dir="ltr">/);
    assert.match(html, /"QUEUE_PENDING":"En attente de validation"/);
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
    const arabic = await (await fetch(`${t.url}${MOD}?locale=ar`, { headers: { cookie: admin.cookie } })).text();
    assert.match(arabic, /<html lang="ar" dir="rtl">/, 'Arabic is laid out right to left');
    const bundle = await fetch(`${t.url}/js/moderation.min.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
  });

  test('the moderators\' live feed: only for moderators, only from this server\'s page, names each new comment', async () => {
    const feedUrl = `${t.url.replace('http', 'ws')}${MOD}/live`;
    const refusal = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(feedUrl, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => reject(new Error('the feed opened')));
        ws.on('error', () => undefined);
      });
    const admin = await signIn(t, sink, { isCommentModeratorAdmin: true });
    const plain = await signIn(t, sink, { isAPIAdmin: true });
    assert.equal(await refusal({ origin: t.url }), 401, 'no session');
    assert.equal(await refusal({ origin: t.url, cookie: plain.cookie }), 403, 'no permission');
    assert.equal(await refusal({ origin: 'http://localhost:3000', cookie: admin.cookie }), 403, 'another site');

    /** An open feed and the frames it has received so far. */
    const openFeed = async (cookie: string) => {
      const ws = new WebSocket(feedUrl, { headers: { origin: t.url, cookie } });
      const frames: Json[] = [];
      ws.on('message', (data) => frames.push(JSON.parse(String(data))));
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const heard = (id: string) =>
        new Promise<Json>((resolve) => {
          const check = () => {
            const frame = frames.find((f) => f.commentId === id);
            if (frame) resolve(frame);
            else ws.once('message', () => setImmediate(check));
          };
          check();
        });
      return { ws, frames, heard };
    };

    // A moderator limited to group g1 (an accepted invitation) hears only comments of g1.
    const email = `page-grouped-${storage}@example.com`;
    const invited = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Grouped', email, moderationGroupIds: ['g1'] } })).moderator;
    const user = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: `page-grouped-${storage}`, email } })).tenantUser;
    ok(await call(t, 'POST', `/api/v1/tenant-users/${String(user['id'])}/send-login-link`));
    const login = await sink.waitFor((r: Received) => r.rcptTo.includes(email), 'the login link');
    const opened = await fetch(linkIn(login, '/auth/login-link/'));
    assert.equal(opened.status, 200);
    const grouped = { cookie: opened.headers.get('set-cookie')!.split(';')[0]! };
    ok(await call(t, 'POST', `/api/v1/moderators/${String(invited['_id'])}/send-invite`, { query: { fromName: 'Boss' } }));
    const invite = await sink.waitFor((r: Received) => r.rcptTo.includes(email) && /moderator-invite/.test(String(r.mail.text ?? r.mail.html)), 'the invitation');
    assert.equal((await fetch(linkIn(invite, '/auth/moderator-invite/'))).status, 200);

    const all = await openFeed(admin.cookie);
    const g1 = await openFeed(grouped.cookie);
    try {
      const urlId = '/page-feed';
      const posted = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Heard by the feed'));
      assert.equal(posted.status, 200);
      const id = String(posted.body.comment._id);
      assert.deepEqual(await all.heard(id), { type: 'moderation-queued', commentId: id, urlId });
      // Two comments of one page, published in this order: the g2 one first.
      const outside = await postComment(t, urlId, { comment: 'In g2', moderationGroupIds: ['g2'] });
      const inside = await postComment(t, urlId, { comment: 'In g1', moderationGroupIds: ['g1'] });
      await all.heard(outside._id);
      await all.heard(inside._id);
      await g1.heard(inside._id);
      assert.equal(g1.frames.some((f) => f.commentId === outside._id || f.commentId === id), false, 'nothing outside the moderator\'s groups');
    } finally {
      all.ws.close();
      g1.ws.close();
    }
  });
});
