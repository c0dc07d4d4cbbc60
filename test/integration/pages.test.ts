import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { getComment, listComments, outcome, postComment } from './page-helpers.js';

interface Page {
  id: string;
  urlId: string;
  url: string | null;
  title: string;
  commentCount: number;
  rootCommentCount: number;
  createdAt: string;
}

for (const storage of storages()) {
  describe(`pages and hashtags on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    const byUrlId = async (urlId: string) => t.api<{ page: Page }>('GET', '/api/v1/pages/by-url-id', { query: { urlId } });

    test('create, list, read, update, delete; counts are calculated and cannot be set', async () => {
      const created = await t.api<{ page: Page }>('POST', '/api/v1/pages', { body: { urlId: '/p/one', url: 'https://e.com/one', title: 'One' } });
      assert.equal(created.status, 200);
      assert.deepEqual([created.body.page.urlId, created.body.page.title, created.body.page.commentCount, created.body.page.rootCommentCount], ['/p/one', 'One', 0, 0]);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/pages', { body: { urlId: '/p/one', url: 'https://example.com/u', title: 'again' } })), [409, 'page-exists']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/pages', { body: { urlId: '/p/two', url: 'https://example.com/u', title: 'T', commentCount: 4 } })), [400, 'calculated-field']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/pages', { body: { url: 'https://example.com/u', title: 'T' } })), [400, 'missing-url-id']);
      assert.deepEqual(outcome(await byUrlId('/p/two')), [404, 'not-found']);
      const id = created.body.page.id;
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/pages/${id}`, { body: { rootCommentCount: 1 } })), [400, 'calculated-field']);

      const root = await postComment(t, '/p/one', { comment: 'root' });
      await postComment(t, '/p/one', { comment: 'reply', parentId: root._id });
      const patched = await t.api<{ page: Page; commentsUpdated: number }>('PATCH', `/api/v1/pages/${id}`, { body: { title: 'Renamed', url: 'https://e.com/1' } });
      assert.deepEqual([patched.body.page.title, patched.body.page.commentCount, patched.body.page.rootCommentCount, patched.body.commentsUpdated], ['Renamed', 2, 1, 2]);
      assert.deepEqual([(await getComment(t, root._id))['pageTitle'], (await getComment(t, root._id))['url']], ['Renamed', 'https://e.com/1']);
      const list = await t.api<{ pages: Page[] }>('GET', '/api/v1/pages');
      assert.deepEqual(list.body.pages.map((p) => [p.urlId, p.title, p.commentCount]), [['/p/one', 'Renamed', 2]]);

      assert.equal((await t.api('DELETE', `/api/v1/pages/${id}`)).status, 200);
      assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/pages/${id}`)), [404, 'not-found']);
      assert.deepEqual((await t.api<{ pages: Page[] }>('GET', '/api/v1/pages')).body.pages, []);
      assert.equal((await listComments(t, { urlId: '/p/one' })).length, 2, 'comments stay');
      // Widget use recreates the page, with its counts and the new title.
      await postComment(t, '/p/one', { comment: 'again', pageTitle: 'Back' });
      const back = await byUrlId('/p/one');
      assert.deepEqual([back.body.page.title, back.body.page.commentCount, back.body.page.rootCommentCount], ['Back', 3, 2]);
      assert.notEqual(back.body.page.id, id);
    });

    test('changing a page\'s urlId moves it with its comments; an existing target is refused', async () => {
      const page = (await t.api<{ page: Page }>('POST', '/api/v1/pages', { body: { urlId: '/old', url: 'https://example.com/u', title: 'Old' } })).body.page;
      const c = await postComment(t, '/old', { comment: 'moving' });
      await t.api('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'up', userId: 'v' } });
      await t.api('POST', '/api/v1/pages', { body: { urlId: '/taken', url: 'https://example.com/u', title: 'Taken' } });
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/pages/${page.id}`, { body: { urlId: '/taken' } })), [409, 'page-exists']);
      assert.equal((await getComment(t, c._id)).urlId, '/old');
      const moved = await t.api<{ page: Page }>('PATCH', `/api/v1/pages/${page.id}`, { body: { urlId: '/new', title: 'New' } });
      assert.deepEqual([moved.status, moved.body.page.urlId, moved.body.page.title, moved.body.page.commentCount], [200, '/new', 'New', 1]);
      const now = await getComment(t, c._id);
      assert.deepEqual([now.urlId, now.votes], ['/new', 1]);
      assert.deepEqual(await listComments(t, { urlId: '/old' }), []);
      assert.equal((await byUrlId('/old')).status, 404);
      assert.equal((await byUrlId('/new')).body.page.id, page.id);
    });

    test('another tenant\'s page ids behave like unknown ids', async () => {
      const page = (await t.api<{ page: Page }>('POST', '/api/v1/pages', { body: { urlId: '/isolated', url: 'https://example.com/u', title: 'Mine' } })).body.page;
      const other = await t.addTenant();
      const as = { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId };
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/pages/${page.id}`, { auth: 'none', headers: as, body: { title: 'x' } })), [404, 'not-found']);
      assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/pages/${page.id}`, { auth: 'none', headers: as })), [404, 'not-found']);
      assert.deepEqual((await t.api<{ pages: Page[] }>('GET', '/api/v1/pages', { auth: 'none', headers: as })).body.pages, []);
      assert.equal((await byUrlId('/isolated')).body.page.title, 'Mine');
    });

    test('hashtags: pages of 100 by tag, bulk, update and delete by encoded tag, re-created by comments', async () => {
      const bulk = await t.api<{ results: { status: string; hashTag?: { tag: string }; code?: string }[] }>('POST', '/api/v1/hash-tags/bulk', {
        body: { tags: Array.from({ length: 100 }, (_, i) => ({ tag: `#tag${String(i).padStart(3, '0')}` })) },
      });
      assert.equal(bulk.body.results.filter((r) => r.status === 'success').length, 100);
      const tooMany = await t.api('POST', '/api/v1/hash-tags/bulk', { body: { tags: Array.from({ length: 101 }, (_, i) => ({ tag: `x${i}` })) } });
      assert.deepEqual(outcome(tooMany), [400, 'invalid-param']);
      for (const tag of ['zeta', '#yak', 'xylo']) assert.equal((await t.api('POST', '/api/v1/hash-tags', { body: { tag } })).status, 200);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/hash-tags', { body: { tag: '#ZETA' } })), [409, 'hashtag-exists']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/hash-tags', { body: { tag: 'two words' } })), [400, 'invalid-param']);
      const page0 = await t.api<{ hashTags: { tag: string }[] }>('GET', '/api/v1/hash-tags');
      const page1 = await t.api<{ hashTags: { tag: string }[] }>('GET', '/api/v1/hash-tags', { query: { page: 1 } });
      assert.equal(page0.body.hashTags.length, 100);
      assert.deepEqual(page1.body.hashTags.map((h) => h.tag), ['#yak', 'xylo', 'zeta']);

      const patched = await t.api<{ hashTag: { tag: string; url: string } }>('PATCH', `/api/v1/hash-tags/${encodeURIComponent('#yak')}`, { body: { url: 'https://e.com/yak' } });
      assert.deepEqual([patched.body.hashTag.tag, patched.body.hashTag.url], ['#yak', 'https://e.com/yak']);
      const renamed = await t.api<{ hashTag: { tag: string; url: string } }>('PATCH', '/api/v1/hash-tags/yak', { body: { tag: '#yakety' } });
      assert.deepEqual([renamed.body.hashTag.tag, renamed.body.hashTag.url], ['#yakety', 'https://e.com/yak']);
      assert.deepEqual(outcome(await t.api('PATCH', '/api/v1/hash-tags/yak', { body: { url: 'https://example.com/x' } })), [404, 'not-found']);
      assert.deepEqual(outcome(await t.api('PATCH', '/api/v1/hash-tags/xylo', { body: { tag: 'zeta' } })), [409, 'hashtag-exists']);
      assert.equal((await t.api('DELETE', `/api/v1/hash-tags/${encodeURIComponent('#yakety')}`)).status, 200);
      assert.deepEqual(outcome(await t.api('DELETE', '/api/v1/hash-tags/yakety')), [404, 'not-found']);

      await postComment(t, '/tags', { comment: 'I like #Yakety and #brand_new' });
      const all = async () => {
        const first = await t.api<{ hashTags: { tag: string }[] }>('GET', '/api/v1/hash-tags');
        const second = await t.api<{ hashTags: { tag: string }[] }>('GET', '/api/v1/hash-tags', { query: { page: 1 } });
        return [...first.body.hashTags, ...second.body.hashTags].map((h) => h.tag);
      };
      const after = await all();
      assert.deepEqual(after.slice(0, 3), ['#Yakety', '#brand_new', '#tag000'], 'ordered by tag');
      assert.deepEqual(after.slice(-2), ['xylo', 'zeta']);
      assert.equal(after.length, 104);

      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId: '/no-auto-tags' }, body: { disableAutoHashTagCreation: true } });
      await postComment(t, '/no-auto-tags', { comment: 'not created: #nope' });
      assert.ok(!(await all()).includes('#nope'));

      const other = await t.addTenant();
      const as = { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId };
      assert.deepEqual((await t.api<{ hashTags: unknown[] }>('GET', '/api/v1/hash-tags', { auth: 'none', headers: as })).body.hashTags, []);
      assert.deepEqual(outcome(await t.api('DELETE', '/api/v1/hash-tags/zeta', { auth: 'none', headers: as })), [404, 'not-found']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/hash-tags', { body: { tag: 'x', tenantId: other.tenantId } })), [403, 'tenant-id-mismatch']);
      // The API description puts tenantId in these bodies: it names the tenant when the header and query do not.
      const keyOnly = { 'x-api-key': t.tenant.apiKey };
      assert.equal((await t.api('POST', '/api/v1/hash-tags', { auth: 'none', headers: keyOnly, body: { tag: 'bodied', tenantId: t.tenant.tenantId } })).status, 200);
      assert.equal((await t.api('PATCH', '/api/v1/hash-tags/bodied', { auth: 'none', headers: keyOnly, body: { url: 'https://example.com/b', tenantId: t.tenant.tenantId } })).status, 200);
      assert.equal((await t.api('POST', '/api/v1/hash-tags/bulk', { auth: 'none', headers: keyOnly, body: { tags: [{ tag: 'bulked' }], tenantId: t.tenant.tenantId } })).status, 200);
      assert.equal((await t.api('DELETE', '/api/v1/hash-tags/bodied', { auth: 'none', headers: keyOnly, body: { tenantId: t.tenant.tenantId } })).status, 200);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/hash-tags', { auth: 'none', headers: keyOnly, body: { tag: 'nobody' } })), [400, 'missing-tenant-id']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/hash-tags', { auth: 'none', headers: keyOnly, body: { tag: 'y', tenantId: other.tenantId } })), [401, 'invalid-api-key']);
    });

    test('the page list comes a bounded page at a time, oldest first', async () => {
      const other = await t.addTenant();
      const as = { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId };
      for (let i = 0; i < 5; i++) {
        const r = await t.api('POST', '/api/v1/pages', { auth: 'none', headers: as, body: { urlId: `/paged-${i}`, url: `https://example.com/${i}`, title: `P${i}` } });
        assert.equal(r.status, 200);
      }
      const list = (query: Record<string, number>) => t.api<{ pages: { urlId: string }[]; hasMore: boolean }>('GET', '/api/v1/pages', { auth: 'none', headers: as, query });
      const first = await list({ limit: 2 });
      assert.deepEqual([first.body.pages.map((p) => p.urlId), first.body.hasMore], [['/paged-0', '/paged-1'], true]);
      const last = await list({ skip: 4, limit: 2 });
      assert.deepEqual([last.body.pages.map((p) => p.urlId), last.body.hasMore], [['/paged-4'], false]);
      assert.equal((await list({})).body.pages.length, 5);
      assert.deepEqual(outcome(await list({ limit: 1001 })), [400, 'invalid-param']);
      // An empty PATCH is refused like the other PATCH routes'.
      const first0 = first.body.pages[0] as unknown as { id: string };
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/pages/${first0.id}`, { auth: 'none', headers: as, body: {} })), [400, 'invalid-param']);
    });
  });
}
