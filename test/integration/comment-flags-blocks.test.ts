import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { getComment, inParallel, listComments, outcome, postComment, recordEvents } from './page-helpers.js';

for (const storage of storages()) {
  describe(`flags and blocks on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('flags count once per user; the threshold hides the comment live; un-flagging never re-approves', async () => {
      const urlId = '/flags';
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { flagHideThreshold: 3 } });
      const c = await postComment(t, urlId, { comment: 'flag me' });
      const flag = (query: Record<string, string>) => t.api<{ wasUnapproved: boolean }>('POST', `/api/v1/comments/${c._id}/flag`, { query });
      assert.deepEqual((await flag({ userId: 'f1' })).body.wasUnapproved, false);
      assert.deepEqual((await flag({ userId: 'f1' })).body.wasUnapproved, false);
      assert.equal((await getComment(t, c._id)).flagCount, 1);
      await flag({ anonUserId: 'anon-f' });
      const rec = recordEvents(t);
      const third = await flag({ userId: 'f3' });
      rec.stop();
      assert.equal(third.body.wasUnapproved, true);
      let now = await getComment(t, c._id);
      assert.deepEqual([now.flagCount, now.approved], [3, false]);
      assert.deepEqual(await listComments(t, { urlId }), []);
      const hidden = rec.events.filter((e) => e.event['type'] === 'deleted-comment');
      assert.equal(hidden.length, 1);
      assert.deepEqual([(hidden[0]!.event['comment'] as { approved: boolean }).approved, (hidden[0]!.event['comment'] as { hidden: boolean }).hidden], [false, true]);
      assert.equal((await t.api('POST', `/api/v1/comments/${c._id}/un-flag`, { query: { userId: 'f3' } })).status, 200);
      assert.equal((await t.api('POST', `/api/v1/comments/${c._id}/un-flag`, { query: { userId: 'f3' } })).status, 200);
      now = await getComment(t, c._id);
      assert.deepEqual([now.flagCount, now.approved], [2, false]);
      const page = await t.api<{ page: { commentCount: number } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId } });
      assert.equal(page.body.page.commentCount, 0);
    });

    test('flag refusals: no user, anonymous flags disabled, unknown comment', async () => {
      const urlId = '/flags-refused';
      const c = await postComment(t, urlId, { comment: 'x' });
      assert.deepEqual(outcome(await t.api('POST', `/api/v1/comments/${c._id}/flag`)), [400, 'missing-user-id']);
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { allowAnonFlag: false } });
      assert.deepEqual(outcome(await t.api('POST', `/api/v1/comments/${c._id}/flag`, { query: { anonUserId: 'a' } })), [403, 'login-required']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/comments/0123456789abcdef01234567/flag', { query: { userId: 'u' } })), [404, 'not-found']);
      assert.equal((await getComment(t, c._id)).flagCount, 0);
    });

    test('concurrent flags from many users end with the exact count', async () => {
      const c = await postComment(t, '/flags-many', { comment: 'popular' });
      await inParallel(300, 50, (i) => t.api('POST', `/api/v1/comments/${c._id}/flag`, { query: { userId: `fu${i % 120}` } }));
      await inParallel(40, 20, (i) => t.api('POST', `/api/v1/comments/${c._id}/un-flag`, { query: { userId: `fu${i}` } }));
      assert.equal((await getComment(t, c._id)).flagCount, 80);
      const stored = await t.server.services.store.find('commentFlags', { tenantId: t.tenant.tenantId, commentId: c._id } as never);
      assert.equal(stored.length, 80);
    });

    test('blocks hide an author from one reader; anonymous comments cannot be blocked', async () => {
      const urlId = '/blocks';
      const byUser = await postComment(t, urlId, { comment: 'by user', userId: 'troll' });
      const byEmail = await postComment(t, urlId, { comment: 'by email', commenterName: 'Mailer', commenterEmail: 'mailer@example.com' });
      const byUserToo = await postComment(t, '/blocks-2', { comment: 'elsewhere', userId: 'troll' });
      const anonymous = await postComment(t, urlId, { comment: 'anonymous' });
      const block = await t.api<{ commentStatuses: Record<string, boolean> }>('POST', `/api/v1/comments/${byUser._id}/block`, {
        query: { anonUserId: 'reader-1' },
        body: { commentIdsToCheck: [byUserToo._id, byEmail._id, '0123456789abcdef01234567'] },
      });
      assert.deepEqual(block.body.commentStatuses, { [byUserToo._id]: true, [byEmail._id]: false, '0123456789abcdef01234567': false });
      await t.api('POST', `/api/v1/comments/${byEmail._id}/block`, { query: { anonUserId: 'reader-1' }, body: {} });
      assert.deepEqual((await listComments(t, { urlId, anonUserId: 'reader-1' })).map((c) => c._id), [anonymous._id]);
      assert.equal((await listComments(t, { urlId, anonUserId: 'reader-2' })).length, 3);
      assert.deepEqual((await listComments(t, { hashTag: [], anonUserId: 'reader-1', urlId: '/blocks-2' })).length, 0);
      assert.deepEqual(outcome(await t.api('POST', `/api/v1/comments/${anonymous._id}/block`, { query: { userId: 'r' }, body: {} })), [400, 'cannot-block-anonymous']);
      assert.deepEqual(outcome(await t.api('POST', `/api/v1/comments/${anonymous._id}/un-block`, { query: { userId: 'r' }, body: {} })), [400, 'cannot-block-anonymous']);
      const unblock = await t.api<{ commentStatuses: Record<string, boolean> }>('POST', `/api/v1/comments/${byUser._id}/un-block`, {
        query: { anonUserId: 'reader-1' },
        body: { commentIdsToCheck: [byUser._id] },
      });
      assert.deepEqual(unblock.body.commentStatuses, { [byUser._id]: false });
      assert.equal((await listComments(t, { urlId, anonUserId: 'reader-1' })).length, 2);
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { disableBlocking: true } });
      assert.deepEqual(outcome(await t.api('POST', `/api/v1/comments/${byUser._id}/block`, { query: { userId: 'r' }, body: {} })), [403, 'blocking-disabled']);
      assert.deepEqual(outcome(await t.api('POST', `/api/v1/comments/${byUser._id}/block`, { body: {} })), [400, 'missing-user-id']);
    });
  });
}
