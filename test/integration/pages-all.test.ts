/**
 * `GET /api/v1/pages` answers every page of the account, as the API's `GetPages` (which takes
 * no paging) is read, on both storages: more than 1,000 pages, streamed in parts read through
 * the index from where the last part ended (pages created at the same moment included, across
 * part boundaries), and a client that goes away midway leaves the server serving.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { PAGES, type PageDoc } from '../../actors/page/page-doc.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { seed } from './aggregate-fixture.js';

const PAGE_COUNT = 2345;
/** Pages created in the same millisecond, in runs longer than one part of the list (500). */
const SAME_MOMENT = 700;
const TITLE = 'T'.repeat(1000);

interface Page {
  id: string;
  urlId: string;
  createdAt: string;
}

function pageDoc(tenantId: string, i: number): PageDoc {
  const createdAt = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / SAME_MOMENT) * 1000).toISOString();
  // Ids out of creation order, so that the order is by createdAt, then id.
  const id = `pg${String((i * 7919) % 100_000).padStart(5, '0')}-${i}`;
  return { _id: id, tenantId, urlId: `/all/${i}`, url: `https://example.com/all/${i}`, title: TITLE, commentCount: 0, rootCommentCount: 0, isClosed: false, accessibleByGroupIds: [], createdAt, updatedAt: createdAt };
}

for (const storage of storages()) {
  describe(`every page of the account on ${storage}`, () => {
    let t: TestServer;
    let expected: string[];
    let store: InstrumentedStore | undefined;
    before(async () => {
      t = await startTestServer(storage, {}, {
        store: (config) =>
          (store = new InstrumentedStore(
            createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS),
          )),
      });
      const other = await t.addTenant({ name: 'Other' });
      const docs = Array.from({ length: PAGE_COUNT }, (_, i) => pageDoc(t.tenant.tenantId, i));
      await seed(t, PAGES, [...docs, { ...pageDoc(other.tenantId, 0), _id: 'other-tenant-page' }]);
      expected = [...docs].sort((a, b) => (a.createdAt === b.createdAt ? (a._id < b._id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1)).map((d) => d._id);
    });
    after(async () => {
      await t.destroy();
    });

    test('answers all 2,345 pages, oldest first, streamed', async () => {
      const all = await t.api<{ pages: Page[]; hasMore: boolean }>('GET', '/api/v1/pages');
      assert.equal(all.status, 200);
      assert.equal(all.headers.get('transfer-encoding'), 'chunked', 'sent in parts');
      assert.equal(all.body.pages.length, PAGE_COUNT);
      assert.deepEqual(all.body.pages.map((p) => p.id), expected, 'each page once, in list order, no other tenant');
      assert.equal(all.body.hasMore, false);

      const rest = await t.api<{ pages: Page[] }>('GET', '/api/v1/pages', { query: { skip: 1000 } });
      assert.deepEqual(rest.body.pages.map((p) => p.id), expected.slice(1000), 'skip, then the rest');
      const whole = await t.api<{ pages: Page[] }>('GET', '/api/v1/pages', { query: { skip: PAGE_COUNT - 2000 } });
      assert.deepEqual(whole.body.pages.map((p) => p.id), expected.slice(PAGE_COUNT - 2000), 'a whole number of parts');
      const none = await t.api<{ pages: Page[]; hasMore: boolean }>('GET', '/api/v1/pages', { query: { skip: PAGE_COUNT } });
      assert.deepEqual([none.body.pages, none.body.hasMore], [[], false]);
      const paged = await t.api<{ pages: Page[]; hasMore: boolean }>('GET', '/api/v1/pages', { query: { skip: 1000, limit: 1000 } });
      assert.deepEqual([paged.body.pages.map((p) => p.id), paged.body.hasMore], [expected.slice(1000, 2000), true], 'a limit still pages');
    });

    test('a client that goes away midway leaves the server serving', async () => {
      const url = new URL('/api/v1/pages', t.url);
      const firstBytes = await new Promise<number>((resolve, reject) => {
        const req = request(url, { headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId } }, (res) => {
          res.once('data', (chunk: Buffer) => {
            req.destroy();
            resolve(chunk.length);
          });
          res.once('error', () => undefined);
        });
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
        req.end();
      });
      assert.ok(firstBytes > 0);
      assert.equal((await t.api('GET', '/healthz', { auth: 'none' })).status, 200);
      const again = await t.api<{ pages: Page[] }>('GET', '/api/v1/pages');
      assert.equal(again.body.pages.length, PAGE_COUNT);
    });

    test('storage lost midway cuts the answer: the client never gets a shorter list that looks complete', async () => {
      // Each part takes a while to read, so storage goes away while later parts are still to come.
      store!.slowDown(100);
      const url = new URL('/api/v1/pages', t.url);
      const outcome = await new Promise<{ status: number; complete: boolean; body: string }>((resolve, reject) => {
        let responded = false;
        const req = request(url, { headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId } }, (res) => {
          responded = true;
          let body = '';
          res.once('data', () => store!.setDown(true));
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('error', () => undefined);
          res.on('close', () => resolve({ status: res.statusCode!, complete: res.complete, body }));
        });
        req.on('error', () => undefined);
        req.on('close', () => (responded ? undefined : reject(new Error('closed before an answer'))));
        req.end();
      });
      store!.setDown(false);
      store!.slowDown(0);
      assert.equal(outcome.status, 200);
      assert.equal(outcome.complete, false, 'the answer was cut');
      assert.ok(outcome.body.startsWith('{"status":"success","pages":['));
      assert.throws(() => JSON.parse(outcome.body), SyntaxError);
      const again = await t.api<{ pages: Page[] }>('GET', '/api/v1/pages');
      assert.equal(again.body.pages.length, PAGE_COUNT, 'and the next read is whole');
    });
  });
}
