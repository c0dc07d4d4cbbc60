import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FEED_URL_ID } from '../../actors/feed/feed-model.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type FeedPost, pub, secureSso, ssoUserOf } from './feed-helpers.js';

type Posts = { feedPosts: FeedPost[]; creditsCost?: number };

for (const storage of storages()) {
  describe(`feed posts on ${storage}`, () => {
    let t: TestServer;
    let author: string;
    before(async () => {
      t = await startTestServer(storage);
      author = await ssoUserOf(t, 'writer', 'The Writer');
    });
    after(async () => {
      await t.destroy();
    });

    const create = (body: Record<string, unknown>, query: Record<string, string | boolean> = {}) => t.api<{ feedPost: FeedPost; code?: string }>('POST', '/api/v1/feed-posts', { body, query });

    test('create: fromUserId must be a hosted-account or SSO user; content is sanitised; media, links and tags are kept', async () => {
      const refused: [Record<string, unknown>, number, string][] = [
        [{ title: 'no author' }, 400, 'missing-param'],
        [{ fromUserId: 'nobody', title: 'x' }, 400, 'feed-post-user-unknown'],
        [{ fromUserId: 'writer' }, 400, 'feed-post-empty'],
        [{ fromUserId: 'writer', title: 'x', bogus: 1 }, 400, 'unexpected-param'],
        [{ fromUserId: 'writer', media: [{ title: 'no sizes' }] }, 400, 'missing-param'],
        [{ fromUserId: 'writer', media: [{ sizes: [{ w: 1, h: 1, src: 'javascript:alert(1)' }] }] }, 400, 'invalid-url'],
        [{ fromUserId: 'writer', links: [{ url: 'ftp://x' }] }, 400, 'invalid-url'],
      ];
      for (const [body, status, code] of refused) {
        const r = await create(body);
        assert.deepEqual([r.status, r.body['code']], [status, code], JSON.stringify(body));
      }
      // A commenter made from an email is neither an SSO nor a hosted-account user.
      const commenter = await t.api<{ comment: { userId: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Cy', commenterEmail: 'cy@blog.example', comment: 'hi', url: 'https://blog.example/x', urlId: '/x', locale: 'en' } });
      assert.equal((await create({ fromUserId: commenter.body.comment.userId, title: 'x' })).body['code'], 'feed-post-user-unknown');
      assert.equal(((await t.api<Posts>('GET', '/api/v1/feed-posts')).body.feedPosts).length, 0, 'nothing was stored');

      const r = await create({
        fromUserId: 'writer',
        title: 'Hello',
        contentHTML: '<b>bold</b><script>alert(1)</script><a href="javascript:x">bad</a><img src="/a.png" onerror="x">',
        media: [{ title: 'pic', linkUrl: 'https://blog.example/p', sizes: [{ w: 100, h: 50, src: 'https://cdn.example/a.png' }, { w: 10, h: 5, src: '/a-small.png' }] }],
        links: [{ text: 'read', title: 'T', description: 'D', url: 'https://blog.example/read' }],
        tags: ['news', 'news', 'tech'],
        meta: { source: 'api' },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const post = r.body.feedPost;
      assert.equal(post.fromUserId, author);
      assert.equal(post.fromUserDisplayName, 'The Writer');
      assert.equal(post.contentHTML, '<b>bold</b>&lt;script&gt;alert(1)&lt;/script&gt;<a rel="nofollow noopener ugc" target="_blank">bad</a><img src="/a.png">');
      assert.deepEqual(post.tags, ['news', 'tech']);
      assert.deepEqual(post.media[0]!.sizes.map((s) => s.w), [100, 10]);
      assert.deepEqual(post.meta, { source: 'api' });
      const dup = await create({ fromUserId: 'writer', title: 'Hello', contentHTML: post.contentHTML!, media: post.media, links: post.links });
      assert.ok(dup.status === 200 || dup.status === 409);
    });

    test('duplicate and spam checks: skipDupCheck posts a repeat, doSpamCheck applies the tenant spam rules', async () => {
      assert.equal((await create({ fromUserId: 'writer', title: 'Same' })).status, 200);
      const again = await create({ fromUserId: 'writer', title: 'Same' });
      assert.deepEqual([again.status, again.body['code']], [409, 'feed-post-duplicate']);
      assert.equal((await create({ fromUserId: 'writer', title: 'Same' }, { skipDupCheck: true })).status, 200);
      ok(await t.api('PUT', '/api/v1/widget-config', { body: { spamRules: [{ commentContains: 'casino', actions: ['spam'] }] } }));
      const spam = await create({ fromUserId: 'writer', title: 'Best casino' }, { doSpamCheck: true });
      assert.deepEqual([spam.status, spam.body['code']], [400, 'feed-post-spam']);
      assert.equal((await create({ fromUserId: 'writer', title: 'Best casino' })).status, 200, 'without doSpamCheck the rules are not applied');
    });

    test('list: newest first, afterId cursor, limit, tags; 1 credit per 10 posts, at least 1', async () => {
      const other = await t.addTenant();
      const headers = { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId };
      const as = { auth: 'none' as const, headers };
      const empty = await t.api<Posts>('GET', '/api/v1/feed-posts', as);
      assert.deepEqual([empty.body.feedPosts.length, empty.body.creditsCost], [0, 1]);
      assert.equal((await t.api('POST', '/api/v1/sso-users', { ...as, body: { id: 'o', username: 'o', email: 'o@x.example' } })).status, 200);
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        const r = await t.api<{ feedPost: FeedPost }>('POST', '/api/v1/feed-posts', { ...as, body: { fromUserId: 'o', title: `post ${i}`, tags: i % 5 === 0 ? ['five'] : ['other'] } });
        ids.push(r.body.feedPost._id);
      }
      const first = await t.api<Posts>('GET', '/api/v1/feed-posts', { ...as, query: { limit: 12 } });
      assert.deepEqual(first.body.feedPosts.map((p) => p._id), ids.slice(-12).reverse());
      assert.equal(first.body.creditsCost, 2);
      const next = await t.api<Posts>('GET', '/api/v1/feed-posts', { ...as, query: { limit: 100, afterId: first.body.feedPosts.at(-1)!._id } });
      assert.deepEqual(next.body.feedPosts.map((p) => p._id), ids.slice(0, 13).reverse());
      assert.equal(next.body.creditsCost, 2);
      const tagged = await t.api<Posts>('GET', '/api/v1/feed-posts', { ...as, query: { tags: ['five'] } });
      assert.deepEqual(tagged.body.feedPosts.map((p) => p._id), ids.filter((_, i) => i % 5 === 0).reverse());
      assert.equal(tagged.body.creditsCost, 1);
      assert.equal((await t.api('GET', '/api/v1/feed-posts', { ...as, query: { limit: 101 } })).status, 400);
      // Another tenant's posts are not listed.
      assert.ok((await t.api<Posts>('GET', '/api/v1/feed-posts', { query: { limit: 100 } })).body.feedPosts.every((p) => p.tenantId === t.tenant.tenantId));
    });

    test('patch changes the fields given; ids and author cannot change; a cached list shows the change', async () => {
      const post = (await create({ fromUserId: 'writer', title: 'Before', tags: ['a'] })).body.feedPost;
      assert.ok((await t.api<Posts>('GET', '/api/v1/feed-posts')).body.feedPosts.some((p) => p.title === 'Before'));
      const refused: [Record<string, unknown>, number, string][] = [
        [{ _id: 'other' }, 400, 'id-immutable'],
        [{ tenantId: 'other' }, 400, 'tenant-id-immutable'],
        [{ fromUserId: 'someone' }, 400, 'invalid-param'],
        [{ title: 5 }, 400, 'invalid-param'],
      ];
      for (const [body, status, code] of refused) {
        const r = await t.api('PATCH', `/api/v1/feed-posts/${post._id}`, { body });
        assert.deepEqual([r.status, r.body['code']], [status, code], JSON.stringify(body));
      }
      assert.deepEqual((await t.api('PATCH', '/api/v1/feed-posts/5f0000000000000000000000', { body: { title: 'x' } })).body['code'], 'feed-post-not-found');
      const r = await t.api('PATCH', `/api/v1/feed-posts/${post._id}`, { body: { ...post, title: 'After', contentHTML: '<i>x</i><iframe>' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const listed = (await t.api<Posts>('GET', '/api/v1/feed-posts')).body.feedPosts.find((p) => p._id === post._id)!;
      assert.deepEqual([listed.title, listed.contentHTML, listed.tags], ['After', '<i>x</i>&lt;iframe&gt;', ['a']]);
    });

    test('public: readers list (no author ids, no meta), signed SSO users write and delete their own posts, react and un-react', async () => {
      const tenantId = t.tenant.tenantId;
      const sso = secureSso(t.tenant.apiSecret, { id: 'reader-1', username: 'reader', email: 'r1@blog.example' });
      const other = secureSso(t.tenant.apiSecret, { id: 'reader-2', username: 'other', email: 'r2@blog.example' });
      const anonymous = await pub(t, 'POST', `/feed-posts/${tenantId}`, { body: { title: 'anon' } });
      assert.deepEqual([anonymous.status, anonymous.body['code']], [403, 'sso-required']);
      const made = await pub<{ feedPost: FeedPost }>(t, 'POST', `/feed-posts/${tenantId}`, { query: { sso }, body: { title: 'Mine', contentHTML: '<b>hi</b>', meta: { k: 'v' } } });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const postId = made.body.feedPost._id;
      assert.equal(made.body.feedPost.fromUserId, `${tenantId}:reader-1`);
      assert.equal((await pub(t, 'POST', `/feed-posts/${tenantId}`, { query: { sso }, body: { title: 'As someone else', fromUserId: 'writer' } })).body['code'], 'feed-post-forbidden');

      const list = await pub<Posts & { urlIdWS: string; tenantIdWS: string }>(t, 'GET', `/feed-posts/${tenantId}`, { query: { limit: 5 } });
      assert.equal(list.status, 200);
      const shown = list.body.feedPosts.find((p) => p._id === postId)!;
      assert.deepEqual([shown.fromUserId, shown.meta, shown.title], [undefined, undefined, 'Mine']);
      assert.ok(list.body.feedPosts.every((p) => p.fromUserId === undefined && p.meta === undefined));
      assert.equal(list.body.urlIdWS, t.server.services.liveIds.urlIdWS(tenantId, FEED_URL_ID));

      assert.equal((await pub(t, 'PUT', `/feed-posts/${tenantId}/${postId}`, { query: { sso: other }, body: { title: 'hijack' } })).body['code'], 'feed-post-forbidden');
      const edited = await pub<{ feedPost: FeedPost }>(t, 'PUT', `/feed-posts/${tenantId}/${postId}`, { query: { sso }, body: { title: 'Edited' } });
      assert.deepEqual([edited.status, edited.body.feedPost.title], [200, 'Edited']);

      // Reactions: one per reader and type; undo; anonymous readers by their session.
      const react = (query: Record<string, string | boolean>, reactType = 'heart', cookie?: string) =>
        pub<{ reactType: string; isUndo: boolean }>(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, { query, body: { reactType }, ...(cookie ? { cookie } : {}) });
      assert.deepEqual((await react({ sso })).body, { status: 'success', reactType: 'heart', isUndo: false });
      assert.equal((await react({ sso })).status, 200);
      assert.equal((await react({ sso: other })).status, 200);
      const anon = await react({});
      const cookie = anon.headers.get('set-cookie')!.split(';')[0]!;
      assert.equal((await react({}, 'wow', cookie)).status, 200);
      const stats = await pub<{ stats: Record<string, { reacts: Record<string, number>; commentCount: number }> }>(t, 'GET', `/feed-posts/${tenantId}/stats`, { query: { postIds: [postId, 'nope'] } });
      assert.deepEqual(stats.body.stats, { [postId]: { reacts: { heart: 3, wow: 1 }, commentCount: 0 } });
      const mine = await pub<{ reacts: Record<string, Record<string, boolean>> }>(t, 'GET', `/feed-posts/${tenantId}/user-reacts`, { query: { postIds: [postId], sso } });
      assert.deepEqual(mine.body.reacts, { [postId]: { heart: true } });
      const anonReacts = await pub<{ reacts: Record<string, Record<string, boolean>> }>(t, 'GET', `/feed-posts/${tenantId}/user-reacts`, { query: { postIds: [postId] }, cookie });
      assert.deepEqual(anonReacts.body.reacts, { [postId]: { heart: true, wow: true } });
      assert.deepEqual((await react({ sso, isUndo: true })).body, { status: 'success', reactType: 'heart', isUndo: true });
      assert.equal((await react({ sso, isUndo: true })).status, 200);
      const withUser = await pub<Posts & { myReacts: Record<string, Record<string, boolean>>; user: { id: string; authorized: boolean } }>(t, 'GET', `/feed-posts/${tenantId}`, { query: { sso: other, includeUserInfo: true } });
      assert.deepEqual(withUser.body.myReacts[postId], { heart: true });
      assert.deepEqual([withUser.body.user.id, withUser.body.user.authorized], [`${tenantId}:reader-2`, true]);
      assert.deepEqual(withUser.body.feedPosts.find((p) => p._id === postId)!.reacts, { heart: 2, wow: 1 });
      assert.equal((await pub(t, 'POST', `/feed-posts/${tenantId}/react/5f0000000000000000000000`, { body: { reactType: 'x' } })).body['code'], 'feed-post-not-found');
      assert.equal((await pub(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, { body: { reactType: 'x'.repeat(37) } })).status, 400);
      // A reaction type becomes a field name: what storage cannot hold as one is refused, and nothing changes.
      for (const reactType of ['../', '$set', '__proto__', 'a\u0000b']) {
        const r = await pub(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, { body: { reactType } });
        assert.deepEqual([r.status, r.body['code']], [400, 'invalid-param'], reactType);
      }
      assert.equal((await pub(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, { query: { sso }, body: { reactType: 'constructor' } })).status, 200);
      assert.equal((await pub(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, { query: { sso, isUndo: true }, body: { reactType: 'constructor' } })).status, 200);

      // Comments on a post are comments of the page post:<id>, counted in its stats.
      assert.equal((await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Al', comment: 'on the post', url: 'https://blog.example/feed', urlId: `post:${postId}`, locale: 'en' } })).status, 200);
      await eventually(async () => {
        const s = await pub<{ stats: Record<string, { commentCount: number }> }>(t, 'GET', `/feed-posts/${tenantId}/stats`, { query: { postIds: [postId] } });
        return s.body.stats[postId]?.commentCount === 1;
      }, 30_000);

      assert.equal((await pub(t, 'DELETE', `/feed-posts/${tenantId}/${postId}`, { query: { sso: other } })).body['code'], 'feed-post-forbidden');
      assert.equal((await pub(t, 'DELETE', `/feed-posts/${tenantId}/${postId}`, { query: { sso } })).status, 200);
      assert.equal((await pub(t, 'DELETE', `/feed-posts/${tenantId}/${postId}`, { query: { sso } })).body['code'], 'feed-post-not-found');
      assert.deepEqual((await pub<{ stats: object }>(t, 'GET', `/feed-posts/${tenantId}/stats`, { query: { postIds: [postId] } })).body.stats, {});

      // Every change reached the feed's live channel, in order.
      const log = await pub<{ events: { data: string }[] }>(t, 'GET', `/event-log/${tenantId}`, { query: { urlId: FEED_URL_ID, startTime: 0 } });
      const events = log.body.events.map((e) => JSON.parse(e.data) as { type: string; postId?: string; feedPost?: { _id: string; fromUserId?: string }; feedPostReact?: { postId: string; count: number } });
      const about = events.filter((e) => e.postId === postId || e.feedPost?._id === postId || e.feedPostReact?.postId === postId);
      assert.deepEqual(about.map((e) => e.type), ['new-feed-post', 'updated-feed-post', 'fr', 'fr', 'fr', 'fr', 'dfr', 'fr', 'dfr', 'deleted-feed-post']);
      assert.ok(about.every((e) => e.feedPost === undefined || e.feedPost.fromUserId === undefined));
      assert.deepEqual(about.filter((e) => e.type === 'fr').map((e) => e.feedPostReact!.count), [1, 2, 3, 1, 1]);
    });
  });
}

function ok(r: { status: number; body: unknown }): void {
  assert.equal(r.status, 200, JSON.stringify(r.body));
}
