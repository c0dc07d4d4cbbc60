import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { HTTP_FAMILIES } from '../../engine/metrics/http-meters.js';
import { TIMING_SAMPLE } from '../../engine/metrics/registry.js';
import { eventually } from '../fixtures/eventually.js';
import { type Scrape, scrapeMetrics } from '../fixtures/metrics.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { subscribe } from '../unit/live/fixtures.js';
import { WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';

const REQUESTS = 'comments_http_requests_total';

for (const storage of storages()) {
  describe(`metrics on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let port: number;
    const scrape = () => scrapeMetrics(port);

    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { metricsPort: 0, smtpUrl: sink.url, emailRetryMs: 50, webhookAllowPrivate: true, webhookRetryMs: 50, webhookMaxAttempts: 2 });
      port = t.server.metricsPort!;
    });
    after(async () => {
      await t.destroy();
      await sink.close();
    });

    test('the public port does not serve metrics; the listener is on loopback only, with the process metrics', async () => {
      for (const path of ['/metrics', '/metrics/', '/prometheus']) {
        const res = await fetch(`${t.url}${path}`);
        assert.equal(res.status, 404, path);
        const text = await res.text();
        assert.doesNotMatch(text, /comments_http_requests_total|# TYPE/, path);
      }
      const external = Object.values(networkInterfaces())
        .flat()
        .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;
      if (external !== undefined) await assert.rejects(fetch(`http://${external}:${port}/metrics`), 'not reachable on another address');
      const s = await scrape();
      assert.ok(s.count('nodejs_eventloop_lag_seconds') > 0, 'default Node metrics');
      assert.ok(s.count('process_cpu_user_seconds_total') > 0);
      assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
    });

    test('a request, a refusal and a commit move their families', async () => {
      const before = await scrape();
      // One request in TIMING_SAMPLE is timed: send that many, so that one is.
      let posted = await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Ann', comment: 'Hello', url: 'https://example.com/m', urlId: 'm', locale: 'en_us' } });
      for (let i = 1; i < TIMING_SAMPLE; i++) {
        assert.equal(posted.status, 200);
        posted = await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Ann', comment: `Hello ${i}`, url: 'https://example.com/m', urlId: 'm', locale: 'en_us' } });
      }
      assert.equal(posted.status, 200);
      const refused = await t.api('GET', '/api/v1/comments', { query: { urlId: 'm' }, headers: { 'x-api-key': 'wrong', 'x-tenant-id': t.tenant.tenantId }, auth: 'none' });
      assert.equal(refused.status, 401);
      const code = (refused.body as { code: string }).code;
      const after = await scrape();
      const post = { route: '/api/v1/comments', method: 'POST' };
      assert.equal(after.value(REQUESTS, { ...post, status_class: '2xx' }) - before.value(REQUESTS, { ...post, status_class: '2xx' }), TIMING_SAMPLE);
      assert.equal(after.value('comments_http_request_duration_seconds_count', post) - before.value('comments_http_request_duration_seconds_count', post), 1);
      assert.ok(after.value('comments_http_request_duration_seconds_sum', post) > before.value('comments_http_request_duration_seconds_sum', post));
      assert.ok(after.value('comments_http_request_body_bytes_total', { route: '/api/v1/comments' }) > before.value('comments_http_request_body_bytes_total', { route: '/api/v1/comments' }));
      const get = { route: '/api/v1/comments', method: 'GET', status_class: '4xx' };
      assert.equal(after.value(REQUESTS, get) - before.value(REQUESTS, get), 1);
      assert.equal(after.value('comments_http_refusals_total', { code }) - before.value('comments_http_refusals_total', { code }), 1);
      assert.ok(after.value('comments_storage_commit_duration_seconds_count', { storage }) > before.value('comments_storage_commit_duration_seconds_count', { storage }), 'a commit was timed');
      assert.ok(after.value('comments_storage_commit_batch_writes_sum', { storage }) > before.value('comments_storage_commit_batch_writes_sum', { storage }));
      assert.ok(after.value('comments_actor_handler_duration_seconds_count', { kind: 'page' }) > before.value('comments_actor_handler_duration_seconds_count', { kind: 'page' }));
      assert.ok(after.value('comments_actors_active', { kind: 'page' }) >= 1);
      assert.ok(after.value('comments_actor_activations_total', { kind: 'page' }) >= 1);
      // Raw paths never become labels: the comment's id is in no series.
      assert.doesNotMatch(after.text, new RegExp((posted.body as { comment: { _id: string } }).comment._id));
    });

    test('a websocket subscriber and a live event move the live families', async () => {
      const tenantId = t.tenant.tenantId;
      const posted = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Bea', comment: 'Live', url: 'https://example.com/live-metrics', urlId: '/live-metrics', locale: 'en_us' } });
      assert.equal(posted.status, 200);
      const before = await scrape();
      const reader = await subscribe(t, tenantId, '/live-metrics');
      await eventually(async () => (await scrape()).value('comments_live_connections') === before.value('comments_live_connections') + 1, 10_000);
      const voted = await t.api('POST', '/api/v1/votes', { query: { commentId: posted.body.comment._id, direction: 'up', userId: 'reader-1' } });
      assert.equal(voted.status, 200, JSON.stringify(voted.body));
      await reader.take(1);
      const during = await scrape();
      const page = { kind: 'page', origin: 'local' };
      assert.ok(during.value('comments_live_events_published_total', page) > before.value('comments_live_events_published_total', page));
      assert.ok(during.value('comments_live_event_deliveries_total') > before.value('comments_live_event_deliveries_total'));
      assert.equal(during.value('comments_live_subscriptions', { kind: 'page' }) - before.value('comments_live_subscriptions', { kind: 'page' }), 1);
      assert.equal(during.value('comments_live_presence', { kind: 'page' }) - before.value('comments_live_presence', { kind: 'page' }), 1);
      reader.socket.close();
      await reader.closed;
      await eventually(async () => (await scrape()).value('comments_live_connections') === before.value('comments_live_connections'), 10_000);
      // A client gone without a close frame (as one dropped for backpressure is) counts as an abnormal close.
      const abnormal = (await scrape()).value('comments_live_abnormal_closes_total');
      const vanishing = await subscribe(t, tenantId, '/live-metrics');
      (vanishing.socket as unknown as { _socket: Socket })._socket.destroy();
      await eventually(async () => (await scrape()).value('comments_live_abnormal_closes_total') === abnormal + 1, 10_000);
    });

    test('notification fan-out steps and aggregations in the worker pool are counted', async () => {
      const steps = (s: Scrape) => s.value('comments_notification_fanout_steps_total', { outcome: 'done' });
      const pool = { pool: 'aggregation' };
      const before = await scrape();
      const posted = await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Fay', comment: 'Fan me out', url: 'https://example.com/fan', urlId: 'fan', locale: 'en_us' } });
      assert.equal(posted.status, 200);
      await eventually(async () => steps(await scrape()) > steps(before), 20_000);
      const aggregated = await t.api('POST', '/api/v1/aggregate', { body: { resourceName: 'Comment', operations: [{ field: 'id', op: 'count', alias: 'n' }] } });
      assert.equal(aggregated.status, 200, JSON.stringify(aggregated.body));
      const after = await scrape();
      assert.equal(after.value('comments_pool_run_seconds_count', pool) - before.value('comments_pool_run_seconds_count', pool), 1);
      assert.equal(after.value('comments_pool_queue_seconds_count', pool) - before.value('comments_pool_queue_seconds_count', pool), 1);
      assert.equal(after.value('comments_pool_jobs_total', { ...pool, outcome: 'ok' }) - before.value('comments_pool_jobs_total', { ...pool, outcome: 'ok' }), 1);
    });

    test('emails queued, retried, sent and given up are counted', async () => {
      const events = (s: Scrape) => Object.fromEntries(['queued', 'sent', 'retried', 'given_up'].map((e) => [e, s.value('comments_email_outbox_total', { event: e })]));
      const before = events(await scrape());
      const to = (address: string) => (r: Received) => r.rcptTo.includes(address);
      // A new commenter with an email gets a verification email; the first attempt fails for now (451).
      sink.answerNext(451);
      const first = await t.api('POST', '/api/v1/comments', { query: { sendEmails: true }, body: { commenterName: 'cy', commenterEmail: 'cy@example.org', comment: 'Mail me', url: 'https://example.com/mail', urlId: 'mail', locale: 'en_us' } });
      assert.equal(first.status, 200);
      await sink.waitFor((r) => to('cy@example.org')(r) && r.code === 250);
      await eventually(async () => events(await scrape())['sent']! - before['sent']! === 1, 20_000);
      // Refused for good (550): given up at once.
      sink.answerNext(550);
      const second = await t.api('POST', '/api/v1/comments', { query: { sendEmails: true }, body: { commenterName: 'di', commenterEmail: 'di@example.org', comment: 'Mail me too', url: 'https://example.com/mail', urlId: 'mail', locale: 'en_us' } });
      assert.equal(second.status, 200);
      await eventually(async () => events(await scrape())['given_up']! - before['given_up']! === 1, 20_000);
      const after = events(await scrape());
      assert.equal(after['queued']! - before['queued']!, 2);
      assert.equal(after['retried']! - before['retried']!, 1);
      const s = await scrape();
      assert.ok(s.value('comments_pool_run_seconds_count', { pool: 'template' }) >= 2, 'the emails were built in the template pool');
    });

    test('label cardinality stays bounded under a flood of distinct paths, methods and tenants', async () => {
      const flood = async (from: number, count: number) => {
        for (let i = from; i < from + count; i += 50) {
          await Promise.all(
            Array.from({ length: 50 }, async (_, j) => {
              const n = i + j;
              await (await fetch(`${t.url}/nowhere/${n}/${'x'.repeat(n % 7)}?q=${n}`)).text();
              await (await fetch(`${t.url}/api/v1/comments/id-${n}`, { headers: { 'x-api-key': `key-${n}`, 'x-tenant-id': `tenant-${n}` } })).text();
              await (await fetch(`${t.url}/api/v1/pages`, { method: 'PATCH', headers: { 'x-tenant-id': `t${n}` } })).text();
            }),
          );
        }
      };
      const ours = (s: Scrape) => [...s.series.keys()].filter((key) => key.startsWith('comments_') && !key.startsWith('comments_actor')).length;
      // A first flood may show series of routes and codes not used before; a second one, with
      // new paths and tenants again, must add none.
      await flood(0, 400);
      const middle = await scrape();
      await flood(400, 400);
      const after = await scrape();
      const unmatched = { route: 'unmatched', method: 'OTHER', status_class: '4xx' };
      assert.ok(after.value(REQUESTS, unmatched) - middle.value(REQUESTS, unmatched) >= 400, 'every request is counted');
      assert.equal(ours(after), ours(middle), 'no new series from new paths, methods or tenants');
      for (let n = 0; n < 800; n += 97) {
        assert.equal(after.withLabel(REQUESTS, 'route', `/nowhere/${n}/`).length, 0);
        assert.doesNotMatch(after.text, new RegExp(`tenant-${n}\\b`));
      }
      assert.equal(after.count('comments_tenant_http_requests_total'), 0, 'no tenant series unless named in METRICS_TENANTS');
      assert.ok(HTTP_FAMILIES.requests.size < HTTP_FAMILIES.requests.maxChildren, 'far from the bound where label sets fold into `other`');
    });

    test('webhook deliveries queued, retried, sent and given up are counted', async () => {
      const events = (s: Scrape) => Object.fromEntries(['queued', 'sent', 'retried', 'given_up'].map((e) => [e, s.value('comments_webhook_deliveries_total', { event: e })]));
      let flakyCalls = 0;
      const receiver = await WebhookReceiver.start((hook) => (hook.path === '/flaky' && ++flakyCalls > 1 ? 200 : 500));
      try {
        const before = events(await scrape());
        for (const path of ['/flaky', '/broken']) {
          const res = await t.api('POST', '/api/v1/webhooks', { body: { url: receiver.url(path), event: 'comment-created' } });
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
        const posted = await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Eve', comment: 'Hook me', url: 'https://example.com/hooks', urlId: 'hooks', locale: 'en_us' } });
        assert.equal(posted.status, 200);
        // /flaky: fails once, then is delivered; /broken: fails twice (WEBHOOK_MAX_ATTEMPTS 2) and is given up.
        await eventually(async () => {
          const now = events(await scrape());
          return now['sent']! - before['sent']! === 1 && now['given_up']! - before['given_up']! === 1;
        }, 30_000);
        const after = events(await scrape());
        assert.equal(after['queued']! - before['queued']!, 2);
        assert.equal(after['retried']! - before['retried']!, 2);
      } finally {
        await receiver.close();
      }
    });

    test('readiness: ready while serving, not ready once draining, on both ports', async () => {
      const ready = await fetch(`${t.url}/readyz`);
      assert.equal(ready.status, 200);
      const body = (await ready.json()) as { ready: boolean; checks: Record<string, unknown> };
      assert.equal(body.ready, true);
      assert.equal(body.checks['storageReachable'], true);
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
      assert.equal((await scrape()).value('comments_ready'), 1);
      const readiness = t.server.services.readiness!;
      readiness.drain();
      assert.equal((await scrape()).value('comments_ready'), 0);
      for (const url of [`${t.url}/readyz`, `http://127.0.0.1:${port}/readyz`]) {
        const res = await fetch(url);
        assert.equal(res.status, 503, url);
        const refused = (await res.json()) as { code: string; checks: Record<string, unknown> };
        assert.equal(refused.code, 'shutting-down');
        assert.equal(refused.checks['draining'], true);
      }
      assert.equal((await fetch(`${t.url}/healthz`)).status, 200, 'still alive while draining');
    });
  });
}

describe('metrics off and tenants opted in', () => {
  test('without METRICS_PORT there is no listener; stopping drains readiness first', async () => {
    const t = await startTestServer('lmdb');
    try {
      assert.equal(t.server.metricsPort, undefined);
      assert.equal((await fetch(`${t.url}/readyz`)).status, 200);
    } finally {
      const stopping = t.server.stop();
      assert.equal(t.server.services.readiness!.draining, true, 'not ready from the first moment of the stop');
      await stopping;
      await t.destroy();
    }
  });

  test('METRICS_TENANTS gives the named tenant series of its own, by status class', async () => {
    const t = await startTestServer('lmdb', { metricsPort: 0 });
    try {
      // The tenant is made before the server starts: name it by restarting with the setting.
      const named = await t.restart({ metricsPort: 0, metricsTenants: `${t.tenant.tenantId},unknown-tenant` });
      try {
        const before = await scrapeMetrics(named.server.metricsPort!);
        assert.equal((await named.api('GET', '/api/v1/me')).status, 200);
        const after = await scrapeMetrics(named.server.metricsPort!);
        const labels = { tenant: named.tenant.tenantId, status_class: '2xx' };
        assert.equal(after.value('comments_tenant_http_requests_total', labels) - before.value('comments_tenant_http_requests_total', labels), 1);
      } finally {
        await named.destroy();
      }
    } finally {
      await t.destroy();
    }
  });
});

describe('metrics of a storage outage', () => {
  test('failed commits, storage-unavailable answers and readiness show it, and recover', async () => {
    let wrapper: InstrumentedStore | undefined;
    const t = await startTestServer('lmdb', { metricsPort: 0 }, { store: (config) => (wrapper = new InstrumentedStore(createStore({ dataDir: config.dataDir }, COLLECTIONS))) });
    try {
      const port = t.server.metricsPort!;
      assert.equal((await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'before.example' } })).status, 200);
      const before = await scrapeMetrics(port);
      assert.equal(before.value('comments_ready'), 1);
      wrapper!.setDown(true);
      const write = await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'during.example' } });
      assert.deepEqual([write.status, write.body['code']], [503, 'storage-unavailable']);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      assert.equal(ready.status, 503);
      assert.equal(((await ready.json()) as { code: string }).code, 'storage-unavailable');
      const during = await scrapeMetrics(port);
      assert.equal(during.value('comments_ready'), 0);
      assert.ok(during.value('comments_storage_commit_failures_total', { storage: 'lmdb' }) > before.value('comments_storage_commit_failures_total', { storage: 'lmdb' }));
      const unavailable = { code: 'storage-unavailable' };
      assert.ok(during.value('comments_http_refusals_total', unavailable) - before.value('comments_http_refusals_total', unavailable) >= 1);
      wrapper!.setDown(false);
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, 10_000);
      assert.equal((await scrapeMetrics(port)).value('comments_ready'), 1);
    } finally {
      await t.destroy();
    }
  });
});
