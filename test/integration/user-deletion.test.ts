import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { JOBS } from '../../actors/jobs/jobs.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { call, ok, refused } from './identity-helpers.js';
import { type Comment, postComment, recordEvents } from './page-helpers.js';

type Json = Record<string, unknown>;

/** A comment, or null once gone (comment answers are checked against the OpenAPI by the comment tests). */
async function commentOrNull(t: TestServer, id: string): Promise<Comment | null> {
  const res = await t.api<{ comment: Comment }>('GET', `/api/v1/comments/${id}`);
  if (res.status === 404) return null;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.comment;
}

for (const storage of storages()) {
  describe(`deleting users with their comments on ${storage}`, () => {
    let t: TestServer;
    let n = 0;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t?.destroy();
    });

    /** An SSO user with a comment on `pages` pages, the first of them replied to by someone else. */
    async function author(pages: string[]): Promise<{ id: string; userId: string; comments: string[]; reply: string }> {
      const id = `author-${++n}`;
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id, username: id, email: `${id}@example.com` } }));
      const userId = `${t.tenant.tenantId}:${id}`;
      const comments: string[] = [];
      for (const urlId of pages) comments.push((await postComment(t, urlId, { userId, commenterName: id, commenterEmail: `${id}@example.com`, mentions: [{ id: 'x', tag: '@x' }] }))._id);
      const reply = (await postComment(t, pages[0]!, { parentId: comments[0], commenterName: 'Other' }))._id;
      return { id, userId, comments, reply };
    }

    test('commentDeleteMode=1 anonymizes every comment of the user, live; replies stay; cost 2', async () => {
      const a = await author([`anon-a-${n}`, `anon-b-${n}`]);
      const { events, stop } = recordEvents(t);
      const res = ok(await call<{ user: Json; creditsCost: number }>(t, 'DELETE', `/api/v1/sso-users/${a.id}`, { query: { deleteComments: true, commentDeleteMode: 1 } }));
      stop();
      assert.equal(res.user['id'], a.id);
      assert.equal(res.creditsCost, 2);
      refused(await t.api('GET', `/api/v1/sso-users/by-id/${a.id}`), 404, 'not-found');
      for (const id of a.comments) {
        const c = (await commentOrNull(t, id))!;
        assert.equal(c.commenterName, '', 'the name is gone (null, sent as "")');
        for (const field of ['commenterEmail', 'avatarSrc', 'userId', 'anonUserId', 'mentions', 'badges']) assert.equal(c[field] ?? null, null, field);
        assert.equal(c['isDeleted'], true);
        assert.equal(c['isDeletedUser'], true);
        assert.equal(c.comment, 'Hello', 'the text is kept');
      }
      assert.ok(await commentOrNull(t, a.reply), 'the reply stays');
      assert.equal(events.filter((e) => e.event['type'] === 'updated-comment').length, 2, 'live');
    });

    test('Remove (default): comments deleted, replies following each page thread deletion mode', async () => {
      const pages = [0, 1, 2, 3].map((mode) => `thread-${mode}-${n}`);
      for (const [mode, urlId] of pages.entries()) {
        ok(await call(t, 'PUT', '/api/v1/widget-config', { query: { urlId }, body: { commentThreadDeleteMode: mode } }));
      }
      const a = await author(pages);
      // A comment with a reply on every page, not only the first.
      const replies = [a.reply];
      for (const [i, urlId] of pages.entries()) if (i > 0) replies.push((await postComment(t, urlId, { parentId: a.comments[i], commenterName: 'Other' }))._id);
      const lone = (await postComment(t, pages[1]!, { userId: a.userId, commenterName: a.id }))._id;
      const { events, stop } = recordEvents(t);
      ok(await call(t, 'DELETE', `/api/v1/sso-users/${a.id}`, { query: { deleteComments: true } }));
      stop();
      // Modes 0 and 3: the thread goes.
      for (const i of [0, 3]) {
        assert.equal(await commentOrNull(t, a.comments[i]!), null, `mode ${i}: comment`);
        assert.equal(await commentOrNull(t, replies[i]!), null, `mode ${i}: reply`);
      }
      // Modes 1 and 2: the comment is anonymized and its text removed; the reply stays.
      for (const i of [1, 2]) {
        const c = (await commentOrNull(t, a.comments[i]!))!;
        assert.equal(c['isDeleted'], true, `mode ${i}`);
        assert.equal(c['userId'] ?? null, null);
        assert.equal(c.comment, '[deleted]');
        assert.ok(await commentOrNull(t, replies[i]!), `mode ${i}: reply stays`);
      }
      assert.equal(await commentOrNull(t, lone), null, 'a comment without replies is removed in every mode');
      assert.ok(events.some((e) => e.event['type'] === 'deleted-comment'), 'live');
      const left = await t.api<{ comments: Comment[] }>('GET', '/api/v1/comments', { query: { userId: a.userId } });
      assert.deepEqual(left.body.comments, [], 'nothing of the user is left');
    });

    test('tenant users too; without deleteComments their comments stay; bad modes are refused', async () => {
      const tu = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: 'writer', email: 'writer@example.com' } })).tenantUser;
      const c1 = (await postComment(t, 'tu-page', { userId: tu['id'] as string, commenterName: 'writer' }))._id;
      refused(await t.api('DELETE', `/api/v1/tenant-users/${tu['id']}`, { query: { deleteComments: true, commentDeleteMode: 2 } }), 400, 'invalid-param');
      const res = ok(await call<{ creditsCost: number }>(t, 'DELETE', `/api/v1/tenant-users/${tu['id']}`, { query: { deleteComments: true } }));
      assert.equal(res.creditsCost, 2);
      assert.equal(await commentOrNull(t, c1), null);
      refused(await t.api('GET', `/api/v1/tenant-users/${tu['id']}`), 404, 'not-found');

      const a = await author([`keep-${n}`]);
      const kept = ok(await call<{ creditsCost: number }>(t, 'DELETE', `/api/v1/sso-users/${a.id}`));
      assert.equal(kept.creditsCost, 1);
      assert.ok(await commentOrNull(t, a.comments[0]!), 'comments stay');
    });

    test('a deletion cut short by a crash is carried on at the next start', async () => {
      const pages = Array.from({ length: 12 }, (_, i) => `crash-${i}-${n}`);
      const a = await author(pages);
      // What the DELETE records before its first round, then a crash.
      const actorId = `${t.tenant.tenantId}:${a.userId}`;
      await t.server.services.store.commit([
        { op: 'put', collection: JOBS, doc: { _id: `user-erase:${actorId}`, type: 'user-erase', actorId, tenantId: t.tenant.tenantId, createdAt: Date.now(), userId: a.userId, kind: 'sso', mode: 'remove', erased: 0 } },
      ]);
      await t.stop();
      t = await t.restart();
      await t.server.resumed;
      for (const id of a.comments) assert.equal(await commentOrNull(t, id), null);
      refused(await t.api('GET', `/api/v1/sso-users/by-id/${a.id}`), 404, 'not-found');
      assert.deepEqual(await t.server.services.store.find(JOBS, {}), [], 'the job is done');
    });
  });
}
