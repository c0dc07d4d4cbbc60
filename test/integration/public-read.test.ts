/**
 * The widget API's read (`GET /comments/{tenantId}`): the kept anonymous answer and its gzip and
 * brotli encodings, every parameter that changes the answer (sorts, both paging modes, cursors,
 * trees, permalinks, search, configuration, counts), page loads in the daily usage, pending
 * votes, and the per-client limit of posting.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer, withQuery } from '../fixtures/server.js';
import { broadcast, commentData, SITE, widget } from './public-comments-helpers.js';

function raw(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

for (const storage of storages()) {
  describe(`widget API reads on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;
    const ids: string[] = [];
    const urlId = '/read';

    before(async () => {
      t = await startTestServer(storage);
      tenantId = t.tenant.tenantId;
      assert.equal((await t.api('PUT', '/api/v1/widget-config', { body: { pageSize: 3 } })).status, 200);
      // Seven root comments an hour apart (oldest first), the second with two replies, one nested.
      for (let i = 0; i < 7; i++) {
        const r = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
          body: { commenterName: `R${i}`, comment: i === 4 ? `Number ${i} #tagged about cats` : `Number ${i}`, url: 'https://blog.example.com/read', urlId, locale: 'en_us', date: Date.UTC(2024, 0, 1, i) },
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        ids.push(r.body.comment._id);
      }
      const reply = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Re', comment: 'Reply', url: 'https://blog.example.com/read', urlId, locale: 'en_us', parentId: ids[1], date: Date.UTC(2024, 0, 2) } });
      ids.push(reply.body.comment._id);
      const nested = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Ne', comment: 'Nested', url: 'https://blog.example.com/read', urlId, locale: 'en_us', parentId: reply.body.comment._id, date: Date.UTC(2024, 0, 3) } });
      ids.push(nested.body.comment._id);
      // Votes make comment 5 the most relevant.
      for (let v = 0; v < 2; v++) {
        assert.equal((await t.api('POST', '/api/v1/votes', { query: { commentId: ids[5]!, direction: 'up', anonUserId: `v${v}` } })).status, 200);
      }
    });
    after(async () => {
      await t.destroy();
    });

    const read = (query: Record<string, string | number | boolean | undefined> = {}) => widget(t, 'GET', `/comments/${tenantId}`, { urlId, ...query });
    const idsOf = (answer: { body: Record<string, any> }) => (answer.body['comments'] as { _id: string }[]).map((c) => c._id);

    test('sorts, both paging modes, cursors, permalinks and counts', async () => {
      const mr = await read();
      assert.equal(mr.status, 200, JSON.stringify(mr.body));
      assert.equal(mr.body.comments[0]._id, ids[5], 'most relevant first by net votes');
      assert.deepEqual([mr.body.pageNumber, mr.body.hasMore, mr.body.commentCount, mr.body.isClosed, mr.body.presencePollState], [0, true, 7, false, 1]);
      assert.equal(mr.body.user, null);
      assert.equal(mr.body.isSiteAdmin, false);
      const of = await read({ direction: 'OF' });
      // Flat: each root followed by its replies.
      assert.deepEqual(idsOf(of), [ids[0], ids[1], ids[7], ids[8], ids[2]]);
      assert.deepEqual(idsOf(await read({ direction: 'NF', page: 1 })), [ids[3], ids[2], ids[1], ids[7], ids[8]]);
      const last = await read({ direction: 'OF', page: 2 });
      assert.deepEqual([idsOf(last), last.body.hasMore], [[ids[6]], false]);
      assert.deepEqual(idsOf(await read({ direction: 'OF', skip: 5, limit: 1 })), [ids[5]]);
      assert.deepEqual(idsOf(await read({ direction: 'OF', afterCommentId: ids[2], limit: 2 })), [ids[3], ids[4]]);
      assert.deepEqual(idsOf(await read({ direction: 'OF', beforeCommentId: ids[3], limit: 1 })), [ids[2]]);
      const permalink = await read({ direction: 'OF', fetchPageForCommentId: ids[8] });
      assert.deepEqual([permalink.body.pageNumber, idsOf(permalink).includes(ids[8]!)], [0, true]);
      const later = await read({ direction: 'OF', fetchPageForCommentId: ids[6] });
      assert.equal(later.body.pageNumber, 2);
      assert.equal((await read({ countAll: true })).body.commentCount, 9);
      const both = await read({ page: 1, skip: 2 });
      assert.deepEqual([both.status, both.body.code], [400, 'invalid-param']);
    });

    test('trees: depth, children paging and counts', async () => {
      const tree = await read({ direction: 'OF', asTree: true, countChildren: true, maxTreeDepth: 1 });
      const second = tree.body.comments[1];
      assert.equal(second._id, ids[1]);
      assert.deepEqual([second.hasChildren, second.childCount, second.nestedChildrenCount], [true, 1, 1]);
      assert.equal(second.children[0]._id, ids[7]);
      assert.equal(second.children[0].hasChildren, true);
      assert.equal(second.children[0].children, undefined, 'maxTreeDepth stops the nesting');
      const deep = await read({ direction: 'OF', asTree: true });
      assert.equal(deep.body.comments[1].children[0].children[0]._id, ids[8]);
      const skipped = await read({ direction: 'OF', asTree: true, skipChildren: 1 });
      assert.deepEqual(skipped.body.comments[1].children, []);
      const replies = await read({ direction: 'OF', parentId: ids[1] });
      assert.deepEqual(idsOf(replies), [ids[7], ids[8]]);
    });

    test('search and hashtags answer matching comments of every level', async () => {
      assert.deepEqual(idsOf(await read({ searchText: 'CATS' })), [ids[4]]);
      assert.deepEqual(idsOf(await read({ searchText: 'nested' })), [ids[8]]);
      const tagged = await widget(t, 'GET', `${withQuery(`/comments/${tenantId}`, { urlId, hashTags: ['tagged'] })}`);
      assert.deepEqual(idsOf(tagged), [ids[4]]);
    });

    test('configuration and notification count on request; no private fields', async () => {
      const answer = await read({ includeConfig: true, includeNotificationCount: true });
      assert.equal(answer.body.customConfig.pageSize, 3);
      assert.equal(answer.body.notificationCount, 0);
      const text = JSON.stringify(answer.body);
      assert.ok(!text.includes('commenterEmail') && !text.includes('"meta"') && !text.includes('anonUserId'), text.slice(0, 300));
    });

    test('an anonymous view is kept bytes, served in the encoding asked for, and dropped when the page changes', async () => {
      const url = withQuery(`${t.url}/comments/${tenantId}`, { urlId });
      const plain = await raw(url, { origin: SITE });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      const br = await raw(url, { origin: SITE, 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(brotliDecompressSync(br.body), plain.body);
      const gz = await raw(url, { origin: SITE, 'accept-encoding': 'gzip' });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.deepEqual(gunzipSync(gz.body), plain.body);
      assert.match(String(gz.headers['vary']), /accept-encoding/i);
      const refusedBr = await raw(url, { origin: SITE, 'accept-encoding': 'gzip;q=0, br;q=0' });
      assert.equal(refusedBr.headers['content-encoding'], undefined);

      const vote = await widget(t, 'POST', `/comments/${tenantId}/${ids[0]}/vote`, { urlId, broadcastId: broadcast() }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
      assert.equal(vote.status, 200, JSON.stringify(vote.body));
      const after = JSON.parse((await raw(url, { origin: SITE })).body.toString()) as { comments: { _id: string; votesUp: number }[] };
      assert.equal(after.comments.find((c) => c._id === ids[0])!.votesUp, 1, 'the kept answer went with the change');
    });

    test('page loads reach the daily usage', async () => {
      const before = await t.api<{ tenantDailyUsages: { commentFetchCount: number }[] }>('GET', '/api/v1/tenant-daily-usage');
      const count = (r: typeof before) => r.body.tenantDailyUsages.reduce((n, d) => n + d.commentFetchCount, 0);
      const start = count(before);
      for (let i = 0; i < 3; i++) assert.equal((await read()).status, 200);
      await eventually(async () => count(await t.api('GET', '/api/v1/tenant-daily-usage')) >= start + 3, 30_000);
    });

    test('without anonymous votes, a guest vote waits for verification and changes no count', async () => {
      assert.equal((await t.api('PUT', '/api/v1/widget-config', { body: { pageSize: 3, allowAnonVotes: false } })).status, 200);
      try {
        const refused = await widget(t, 'POST', `/comments/${tenantId}/${ids[2]}/vote`, { urlId, broadcastId: broadcast() }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
        assert.deepEqual([refused.status, refused.body.code], [403, 'login-required']);
        const pending = await widget(t, 'POST', `/comments/${tenantId}/${ids[2]}/vote`, { urlId, broadcastId: broadcast() }, { voteDir: 'up', url: null, commenterName: 'Gus', commenterEmail: 'gus@example.com' });
        assert.equal(pending.status, 200, JSON.stringify(pending.body));
        assert.deepEqual([pending.body.status, pending.body.isVerified], ['pending-verification', false]);
        const seen = (await read({ direction: 'OF', sessionId: pending.body.user.sessionId })).body.comments.find((c: any) => c._id === ids[2]);
        assert.deepEqual([seen.votesUp, seen.isVotedUp], [0, true]);
        const back = await widget(t, 'DELETE', `/comments/${tenantId}/${ids[2]}/vote/${pending.body.voteId}`, { urlId, broadcastId: broadcast(), editKey: pending.body.editKey });
        assert.deepEqual([back.status, back.body.wasPendingVote], [200, true]);
      } finally {
        await t.api('PUT', '/api/v1/widget-config', { body: { pageSize: 3 } });
      }
    });
  });

  describe(`widget API write limits on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, { publicCommentsPerMinute: 1, publicCommentBurst: 3, anonSessionsPerHour: 4 });
    });
    after(async () => {
      await t.destroy();
    });

    test('posting is limited per client much more tightly than reading', async () => {
      const tenantId = t.tenant.tenantId;
      const from = { 'x-forwarded-for': '10.9.0.1' };
      const post = (sessionId?: string) => widget(t, 'POST', `/comments/${tenantId}`, { urlId: '/limits', broadcastId: broadcast(), sessionId }, commentData('/limits', `Hi ${Math.random()}`), from);
      const first = await post();
      assert.equal(first.status, 200);
      // A flood of new sessions from one client is cut short (one new session at once here).
      const newSession = await post();
      assert.deepEqual([newSession.status, newSession.body.code], [429, 'rate-limited']);
      assert.equal((await post(first.body.user.sessionId)).status, 200, 'the session carried by sessionId goes on');
      const third = await post(first.body.user.sessionId);
      assert.deepEqual([third.status, third.body.code], [429, 'rate-limited']);
      assert.ok(Number(third.headers.get('retry-after')) >= 1);
      for (let i = 0; i < 10; i++) assert.equal((await widget(t, 'GET', `/comments/${tenantId}`, { urlId: '/limits' })).status, 200);
      const read = await widget(t, 'GET', `/comments/${tenantId}`, { urlId: '/limits' });
      assert.equal(read.body.comments.length, 2, 'the refused post stored nothing');
    });
  });
}
