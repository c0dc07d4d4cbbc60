/**
 * The moderation export streams (docs/moderation.md, "Export"): the download is sent in parts,
 * and storage is read a batch at a time, each batch starting where the last ended, so no read
 * ever holds more than a batch of comments, however large the export. Comments sharing one date
 * (more than a batch of them) are each sent once, in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COMMENTS, type CommentDoc } from '../../actors/page/comment-doc.js';
import type { Filter, FindOptions } from '../../storage/store.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { MOD } from './moderation-helpers.js';
import { secureSso } from './public-comments-helpers.js';
import { seed } from './aggregate-fixture.js';

/** The export's storage batch (http/routes/moderate-export.ts). */
const BATCH = 500;
/** Comments per shared date: more than a batch, so batches end inside a run of equal dates. */
const SAME_DATE = 700;
const COUNT = 2100;

/** Records the largest comment read storage was asked for (skip + limit) and answered. */
class ReadSizes extends InstrumentedStore {
  largestAsked = 0;
  largestAnswer = 0;
  watching = false;

  override async find<T extends Record<string, unknown> & { _id: string }>(collection: string, filter: Filter, options?: FindOptions): Promise<T[]> {
    const docs = await super.find<T>(collection, filter, options);
    if (this.watching && collection === COMMENTS) {
      this.largestAsked = Math.max(this.largestAsked, (options?.skip ?? 0) + (options?.limit ?? Infinity));
      this.largestAnswer = Math.max(this.largestAnswer, docs.length);
    }
    return docs;
  }
}

for (const storage of storages()) {
  describe(`the moderation export streams on ${storage}`, () => {
    let t: TestServer;
    let store: ReadSizes | undefined;
    before(async () => {
      t = await startTestServer(storage, {}, {
        store: (config) =>
          (store = new ReadSizes(createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS))),
      });
    });
    after(async () => {
      await t?.destroy();
    });

    test(`${COUNT} comments, ${SAME_DATE} to a date: every one sent once, newest first, no read beyond a batch`, async () => {
      const base = Date.parse('2024-01-01T00:00:00Z');
      const dateOf = (i: number) => new Date(base + Math.floor(i / SAME_DATE) * 60_000).toISOString();
      // One comment made as a writer makes it; the rest are its copies written straight to storage (FerretDB takes tens of milliseconds a comment).
      const made = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Writer 0', comment: 'Exported 0', url: 'https://example.com/export', urlId: 'export', locale: 'en_us', date: dateOf(0) } });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const template = (await t.server.services.store.get<CommentDoc>(COMMENTS, made.body.comment._id))!;
      assert.equal(template.date, dateOf(0));
      await seed(t, COMMENTS, Array.from({ length: COUNT - 1 }, (_, k) => ({ ...template, _id: `${template._id}-${k + 1}`, commenterName: `Writer ${k + 1}`, comment: `Exported ${k + 1}`, commentHTML: `Exported ${k + 1}`, date: dateOf(k + 1) })));
      const sso = secureSso(t.tenant.apiSecret, { id: 'export-mod', email: 'export-mod@example.com', username: 'exportmod', isAdmin: true });
      const call = async (method: string, path: string, query: Record<string, string> = {}): Promise<Response> =>
        checkedFetch(`${t.url}${MOD}${path}?${new URLSearchParams({ tenantId: t.tenant.tenantId, sso, ...query })}`, { method });

      store!.watching = true;
      const created = (await (await call('POST', '/api/export')).json()) as { batchJobId: string };
      let status: { jobStatus: string; recordCount: number };
      do status = (await (await call('GET', '/api/export/status', { batchJobId: created.batchJobId })).json()) as typeof status;
      while (status.jobStatus === 'pending');
      assert.deepEqual(status, { status: 'success', jobStatus: 'done', recordCount: COUNT, downloadUrl: `${MOD}/api/export/download?batchJobId=${created.batchJobId}&format=csv` });

      const csv = await call('GET', '/api/export/download', { batchJobId: created.batchJobId, format: 'csv' });
      assert.equal(csv.headers.get('transfer-encoding'), 'chunked', 'sent in parts');
      const rows = (await csv.text()).trim().split('\r\n').slice(1);
      const json = await call('GET', '/api/export/download', { batchJobId: created.batchJobId, format: 'json' });
      assert.equal(json.headers.get('transfer-encoding'), 'chunked', 'sent in parts');
      const comments = ((await json.json()) as { comments: { id: string; comment: string; date: string }[] }).comments;
      store!.watching = false;

      for (const [what, ids] of [['csv', rows.map((r) => r.split(',')[0]!)], ['json', comments.map((c) => c.id)]] as const) {
        assert.equal(ids.length, COUNT, `${what}: every comment`);
        assert.equal(new Set(ids).size, COUNT, `${what}: each once`);
      }
      const texts = new Set(comments.map((c) => c.comment));
      for (let i = 0; i < COUNT; i++) assert.ok(texts.has(`Exported ${i}`), `comment ${i} exported`);
      for (let i = 1; i < comments.length; i++) assert.ok(comments[i - 1]!.date >= comments[i]!.date, 'newest first');

      assert.ok(store!.largestAnswer <= BATCH, `no read answered more than a batch (${store!.largestAnswer})`);
      assert.ok(store!.largestAsked <= BATCH + SAME_DATE, `no read asked for more than a batch beyond one run of equal dates (${store!.largestAsked}; the export has ${COUNT})`);
    });
  });
}
