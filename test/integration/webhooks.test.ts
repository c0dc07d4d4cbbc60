import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { WebhooksSweepKind } from '../../actors/webhook/protocol.js';
import { standardWebhooksSecret } from '../../webhooks/signing.js';
import { eventually } from '../fixtures/eventually.js';
import { assertWireShape } from '../fixtures/openapi.js';
import { type ApiResponse, type RequestOptions, startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { gate, type ReceivedHook, WebhookReceiver } from '../fixtures/webhook-receiver.js';

interface Subscription {
  id: string;
  url: string;
  event: string;
  domain: string;
  method: string;
  source: string;
  enabled: boolean;
  createdAt: string;
}

interface Pending {
  _id: string;
  commentId: string;
  attemptCount: number;
  createdAt: string;
  nextAttemptAt: string;
  eventType: number;
  type: number;
  domain: string;
  lastError: Record<string, unknown>;
  webhookId: string;
  comment: Record<string, unknown>;
}

/** Calls the API as `tenant`. */
function as(server: TestServer, tenant: ProvisionedTenant) {
  return <T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> =>
    server.api<T>(method, path, { ...options, auth: 'none', headers: { 'x-api-key': tenant.apiKey, 'x-tenant-id': tenant.tenantId, ...options.headers } });
}

type Api = ReturnType<typeof as>;

async function subscribe(api: Api, body: Record<string, unknown>): Promise<Subscription> {
  const res = await api<{ webhook: Subscription }>('POST', '/api/v1/webhooks', { body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.webhook;
}

async function comment(api: Api, urlId: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
    body: { commenterName: 'Ann', comment: text, url: `https://example.com/${urlId}`, urlId, locale: 'en_us', ...extra },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.comment._id;
}

async function pendingCount(api: Api, query: Record<string, string | number> = {}): Promise<number> {
  const res = await api<{ count: number }>('GET', '/api/v1/pending-webhook-events/count', { query });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assertWireShape('GetPendingWebhookEventCount', res.body);
  return res.body.count;
}

/** Fails unless both signatures of a delivery are the tenant's. */
function assertSigned(hook: ReceivedHook, apiSecret: string): void {
  const timestamp = hook.headers['x-fastcomments-timestamp']!;
  assert.match(timestamp, /^\d{10}$/);
  const expected = createHmac('sha256', apiSecret).update(`${timestamp}.${hook.body}`).digest('hex');
  assert.equal(hook.headers['x-fastcomments-signature'], `sha256=${expected}`);
  assert.equal(hook.headers['webhook-timestamp'], timestamp);
  assert.ok(hook.headers['webhook-id']);
  // As a Standard Webhooks receiver configures it (whsec_ + base64), and as the raw secret.
  new Webhook(standardWebhooksSecret(apiSecret)).verify(hook.body, hook.headers);
  new Webhook(apiSecret, { format: 'raw' }).verify(hook.body, hook.headers);
  assert.throws(() => new Webhook(standardWebhooksSecret(`${apiSecret}x`)).verify(hook.body, hook.headers));
  assert.equal(hook.headers['content-type'], 'application/json');
  assert.equal(hook.headers['token'], undefined, 'API subscriptions never get the legacy token header');
}

for (const storage of storages()) {
  describe(`webhooks on ${storage}`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let demo: Api;
    before(async () => {
      server = await startTestServer(storage, { webhookAllowPrivate: true, webhookRetryMs: 400, webhookTimeoutMs: 60_000 });
      receiver = await WebhookReceiver.start();
      demo = as(server, server.tenant);
    });
    after(async () => {
      await server.destroy();
      await receiver.close();
    });

    test('subscriptions: added once per url, event and domain, listed, filtered and removed; bad ones refused', async () => {
      const url = receiver.url('/subs');
      const created = await subscribe(demo, { url, event: 'comment-created' });
      assert.deepEqual({ ...created, id: '', createdAt: '' }, { id: '', url, event: 'comment-created', domain: '*', method: 'POST', source: 'api', enabled: true, createdAt: '' });
      assert.equal((await subscribe(demo, { url, event: 'comment-created', domain: '*' })).id, created.id, 'subscribing again answers the same subscription');

      let res = await demo('POST', '/api/v1/webhooks', { body: { url, event: 'comment-updated', domain: 'blog.example.com', method: 'PUT' } });
      assert.equal(res.status, 400);
      assert.equal(res.body['code'], 'domain-invalid');
      assert.equal((await demo('POST', '/api/v1/domain-configs', { body: { domain: 'blog.example.com' } })).status, 200);
      const updated = await subscribe(demo, { url, event: 'comment-updated', domain: 'Blog.Example.com', method: 'PUT' });
      assert.equal(updated.domain, 'blog.example.com');
      assert.equal(updated.method, 'PUT');

      const list = async (query: Record<string, string> = {}) => (await demo<{ webhooks: Subscription[] }>('GET', '/api/v1/webhooks', { query })).body.webhooks.map((w) => w.id);
      assert.deepEqual(await list(), [created.id, updated.id]);
      assert.deepEqual(await list({ event: 'comment-updated' }), [updated.id]);
      assert.deepEqual(await list({ domain: 'blog.example.com' }), [updated.id]);
      assert.deepEqual(await list({ source: 'api' }), [created.id, updated.id]);

      for (const [body, code] of [
        [{ url: 'ftp://example.com/x', event: 'comment-created' }, 'invalid-url'],
        [{ url: 'not a url', event: 'comment-created' }, 'invalid-url'],
        [{ url, event: 'comment-voted' }, 'invalid-param'],
        [{ url, event: 'comment-created', method: 'GET' }, 'invalid-param'],
        [{ event: 'comment-created' }, 'missing-param'],
        [{ url, event: 'comment-created', secret: 'x' }, 'unexpected-param'],
        [{ url: 'http://no-such-host.invalid/hook', event: 'comment-created' }, 'webhook-host-unresolved'],
      ] as const) {
        res = await demo('POST', '/api/v1/webhooks', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body['code'], code, JSON.stringify(body));
      }

      assert.equal((await demo('DELETE', `/api/v1/webhooks/${created.id}`)).status, 200);
      res = await demo('DELETE', `/api/v1/webhooks/${created.id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body['code'], 'not-found');
      const other = as(server, await server.addTenant());
      assert.equal((await other('DELETE', `/api/v1/webhooks/${updated.id}`)).status, 404, "another tenant's subscription is unknown");
      assert.deepEqual(await list(), [updated.id]);
      assert.equal((await demo('DELETE', `/api/v1/webhooks/${updated.id}`)).status, 200);
    });

    test('at most 50 subscriptions per tenant; subscribing again to one of them still answers', async () => {
      const api = as(server, await server.addTenant());
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) ids.push((await subscribe(api, { url: receiver.url(`/limit/${i}`), event: 'comment-created' })).id);
      const res = await api('POST', '/api/v1/webhooks', { body: { url: receiver.url('/limit/50'), event: 'comment-created' } });
      assert.equal(res.status, 409);
      assert.equal(res.body['code'], 'webhook-limit');
      assert.equal((await subscribe(api, { url: receiver.url('/limit/7'), event: 'comment-created' })).id, ids[7]);
    });

    test('both signatures verify with the API secret; each comment is received created, updated, deleted, in that order', async () => {
      const url = receiver.url('/order');
      const subs = [
        await subscribe(demo, { url, event: 'comment-created', method: 'POST' }),
        await subscribe(demo, { url, event: 'comment-updated', method: 'PUT' }),
        await subscribe(demo, { url, event: 'comment-deleted', method: 'DELETE' }),
      ];
      const ids = await Promise.all(
        [0, 1, 2, 3, 4].map(async (n) => {
          const id = await comment(demo, `order-${n % 2}`, `first ${n}`);
          assert.equal((await demo('PATCH', `/api/v1/comments/${id}`, { body: { comment: `second ${n}` } })).status, 200);
          assert.equal((await demo('DELETE', `/api/v1/comments/${id}`)).status, 200);
          return id;
        }),
      );
      const hooks = () => receiver.received.filter((h) => h.path === '/order');
      await eventually(async () => hooks().length >= 15, 30_000);
      assert.equal(hooks().length, 15);
      for (const [n, id] of ids.entries()) {
        const mine = hooks().filter((h) => h.json['id'] === id);
        assert.deepEqual(mine.map((h) => h.method), ['POST', 'PUT', 'DELETE'], `deliveries of comment ${n} in order`);
        assert.deepEqual(mine.map((h) => h.json['comment']), [`first ${n}`, `second ${n}`, `second ${n}`]);
      }
      const ids15 = new Set(hooks().map((h) => h.headers['webhook-id']));
      assert.equal(ids15.size, 15, 'every delivery has its own webhook-id');
      for (const hook of hooks()) {
        assertSigned(hook, server.tenant.apiSecret);
        const body = hook.json;
        assert.match(String(body['date']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'date is an ISO 8601 UTC string');
        for (const field of ['id', 'urlId', 'url', 'commenterName', 'comment', 'commentHTML', 'locale']) assert.equal(typeof body[field], 'string', field);
        for (const field of ['votes', 'votesUp', 'votesDown']) assert.equal(body[field], 0, field);
        for (const field of ['verified', 'reviewed', 'isSpam', 'approved', 'hasImages']) assert.equal(typeof body[field], 'boolean', field);
        assert.equal(body['parentId'], null);
        assert.equal(body['domain'], 'example.com');
        assert.equal(body['_id'], undefined);
      }
      await eventually(async () => (await pendingCount(demo)) === 0, 30_000);
      for (const sub of subs) assert.equal((await demo('DELETE', `/api/v1/webhooks/${sub.id}`)).status, 200);
    });

    test('a receiver answering 500 twice gets the event three times; attemptCount and lastError show in between; then nothing is pending', async () => {
      const third = gate<number>();
      const failing = await WebhookReceiver.start((_hook, n) => (n <= 2 ? 500 : third.promise));
      try {
        const sub = await subscribe(demo, { url: failing.url('/retry'), event: 'comment-created' });
        const id = await comment(demo, 'retry', 'try me');
        let seen: Pending | undefined;
        await eventually(async () => {
          const res = await demo<{ pendingWebhookEvents: Pending[] }>('GET', '/api/v1/pending-webhook-events', { query: { commentId: id } });
          assertWireShape('GetPendingWebhookEvents', res.body);
          seen = res.body.pendingWebhookEvents[0];
          return failing.received.length === 3 && seen?.attemptCount === 2;
        }, 30_000);
        assert.equal(seen!.commentId, id);
        assert.equal(seen!.webhookId, sub.id);
        assert.equal(seen!.eventType, 0);
        assert.equal(seen!.type, 1);
        assert.equal(seen!.domain, 'example.com');
        assert.equal(seen!.lastError['statusCode'], 500);
        assert.equal(seen!.lastError['body'], 'answered 500');
        assert.equal(seen!.comment['comment'], 'try me');
        assert.ok(Date.parse(seen!.nextAttemptAt) >= Date.parse(seen!.createdAt));
        assert.equal(await pendingCount(demo, { commentId: id, attemptCountGT: 1 }), 1);
        assert.equal(await pendingCount(demo, { commentId: id, attemptCountGT: 2 }), 0);
        third.open(200);
        await eventually(async () => (await pendingCount(demo, { commentId: id })) === 0, 30_000);
        assert.equal(failing.received.length, 3);
        assert.equal(new Set(failing.received.map((h) => h.headers['webhook-id'])).size, 1, 'every attempt carries the same webhook-id');
        for (const hook of failing.received) assertSigned(hook, server.tenant.apiSecret);
        assert.equal((await demo('DELETE', `/api/v1/webhooks/${sub.id}`)).status, 200);
      } finally {
        third.open(200);
        await failing.close();
      }
    });

    test('a 410 Gone from the receiver removes that subscription and its queued events', async () => {
      const gone = await WebhookReceiver.start(() => 410);
      try {
        const api = as(server, await server.addTenant());
        const created = await subscribe(api, { url: gone.url('/gone'), event: 'comment-created' });
        const updated = await subscribe(api, { url: gone.url('/gone'), event: 'comment-updated' });
        await comment(api, 'gone', 'bye');
        await eventually(async () => (await api<{ webhooks: Subscription[] }>('GET', '/api/v1/webhooks')).body.webhooks.length === 1, 30_000);
        const left = (await api<{ webhooks: Subscription[] }>('GET', '/api/v1/webhooks')).body.webhooks;
        assert.deepEqual(left.map((w) => w.id), [updated.id]);
        assert.notEqual(left[0]!.id, created.id);
        assert.equal(await pendingCount(api), 0);
      } finally {
        await gone.close();
      }
    });

    test("a receiver that never answers does not hold up another tenant's deliveries", async () => {
      const never = gate<number>();
      const stuck = await WebhookReceiver.start(() => never.promise);
      const fast = await WebhookReceiver.start();
      try {
        const slowTenant = as(server, await server.addTenant());
        const fastTenant = as(server, await server.addTenant());
        await subscribe(slowTenant, { url: stuck.url('/stuck'), event: 'comment-created' });
        await subscribe(fastTenant, { url: fast.url('/fast'), event: 'comment-created' });
        for (let i = 0; i < 12; i++) await comment(slowTenant, 'slow', `slow ${i}`);
        await eventually(async () => stuck.open > 0, 30_000);
        for (let i = 0; i < 12; i++) await comment(fastTenant, 'fast', `fast ${i}`);
        await eventually(async () => fast.received.length === 12, 30_000);
        await eventually(async () => (await pendingCount(fastTenant)) === 0, 30_000);
        assert.ok(stuck.open > 0, 'the stuck receiver still holds its requests');
        assert.ok(stuck.received.length <= 4, 'one receiver never has more than its share of its tenant\'s deliveries in flight');
        assert.equal(await pendingCount(slowTenant), 12);
      } finally {
        never.open(200);
        await stuck.close();
        await fast.close();
      }
    });

    test('pending events: 100 per page newest first, filters, count, delete one; bad queries refused', async () => {
      // A receiver that never answers: the events stay as they are while the list is read.
      const never = gate<number>();
      const failing = await WebhookReceiver.start(() => never.promise);
      try {
        const tenant = await server.addTenant();
        const api = as(server, tenant);
        for (const path of ['/p1', '/p2', '/p3']) await subscribe(api, { url: failing.url(path), event: 'comment-created' });
        const commentIds: string[] = [];
        for (let i = 0; i < 35; i++) commentIds.push(await comment(api, `list-${i % 3}`, `pending ${i}`));
        await eventually(async () => (await pendingCount(api)) === 105, 30_000);

        const page = async (query: Record<string, string | number>) => {
          const res = await api<{ pendingWebhookEvents: Pending[] }>('GET', '/api/v1/pending-webhook-events', { query });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assertWireShape('GetPendingWebhookEvents', res.body);
          return res.body.pendingWebhookEvents;
        };
        const first = await page({});
        const second = await page({ skip: 100 });
        assert.equal(first.length, 100);
        assert.equal(second.length, 5);
        const all = [...first, ...second];
        assert.equal(new Set(all.map((e) => e._id)).size, 105);
        for (let i = 1; i < all.length; i++) assert.ok(Date.parse(all[i - 1]!.createdAt) >= Date.parse(all[i]!.createdAt), 'newest first');
        assert.ok(second.every((e) => commentIds.slice(0, 2).includes(e.commentId)), 'the second page holds the oldest');

        assert.equal((await page({ commentId: commentIds[5]! })).length, 3);
        for (const [query, count] of [
          [{ commentId: commentIds[5]! }, 3],
          [{ eventType: 0 }, 105],
          [{ eventType: 2 }, 0],
          [{ type: 1 }, 105],
          [{ type: 0 }, 0],
          [{ domain: 'example.com' }, 105],
          [{ domain: 'other.example' }, 0],
          [{ externalId: 'nope' }, 0],
          [{ attemptCountGT: 100_000 }, 0],
        ] as const) {
          assert.equal(await pendingCount(api, query), count, JSON.stringify(query));
        }
        assert.equal(await pendingCount(api, { attemptCountGT: 0 }), 0, 'no attempt has ended');

        const victim = first[0]!._id;
        assert.equal((await api('DELETE', `/api/v1/pending-webhook-events/${victim}`)).status, 200);
        assert.equal(await pendingCount(api), 104);
        let res = await api('DELETE', `/api/v1/pending-webhook-events/${victim}`);
        assert.equal(res.status, 404);
        assert.equal(res.body['code'], 'not-found');
        res = await demo('DELETE', `/api/v1/pending-webhook-events/${first[1]!._id}`);
        assert.equal(res.status, 404, "another tenant's event is unknown");
        assert.equal(await pendingCount(api), 104);

        for (const [query, code] of [
          [{ eventType: 7 }, 'invalid-param'],
          [{ skip: -1 }, 'invalid-param'],
          [{ attemptCountGT: 'many' }, 'invalid-param'],
          [{ colour: 'red' }, 'unexpected-param'],
        ] as const) {
          res = await api('GET', '/api/v1/pending-webhook-events', { query });
          assert.equal(res.status, 400, JSON.stringify(query));
          assert.equal(res.body['code'], code, JSON.stringify(query));
        }
        // Removing the subscriptions removes their queued events.
        for (const sub of (await api<{ webhooks: Subscription[] }>('GET', '/api/v1/webhooks')).body.webhooks) {
          assert.equal((await api('DELETE', `/api/v1/webhooks/${sub.id}`)).status, 200);
        }
        assert.equal(await pendingCount(api), 0);
      } finally {
        never.open(200);
        await failing.close();
      }
    });

    test('events older than the retention are removed by the sweep, through their tenant', async () => {
      const failing = await WebhookReceiver.start(() => 500);
      try {
        const api = as(server, await server.addTenant());
        await subscribe(api, { url: failing.url('/expire'), event: 'comment-created' });
        for (let i = 0; i < 3; i++) await comment(api, 'expire', `old ${i}`);
        assert.equal(await pendingCount(api), 3);
        // As the hourly sweep does a year from now: every event made so far is past the cutoff.
        const swept = await server.server.services.system.ask(WebhooksSweepKind, '', 'expire', { cutoff: Date.now() + 1 });
        assert.ok(swept.tenants >= 1);
        assert.equal(await pendingCount(api), 0);
        await comment(api, 'expire', 'new');
        assert.equal(await pendingCount(api), 1, 'events made after the cutoff stay');
      } finally {
        await failing.close();
      }
    });

    test('every path that changes a comment queues its event: flags that hide, moves, page changes, deletes; votes do not', async () => {
      const api = as(server, await server.addTenant());
      const url = receiver.url('/paths');
      await subscribe(api, { url, event: 'comment-updated', method: 'PUT' });
      await subscribe(api, { url, event: 'comment-deleted', method: 'DELETE' });
      assert.equal((await api('PATCH', '/api/v1/widget-config', { body: { flagHideThreshold: 1 } })).status, 200);
      const flagged = await comment(api, 'paths-a', 'flag me');
      const moved = await comment(api, 'paths-a', 'move me');
      assert.equal((await api('POST', `/api/v1/comments/${flagged}/flag`, { query: { userId: 'reader' } })).status, 200);
      assert.equal((await api('PATCH', `/api/v1/comments/${moved}`, { body: { urlId: 'paths-b' } })).status, 200);
      const page = await api<{ page: { id: string } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId: 'paths-b' } });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.equal((await api('PATCH', `/api/v1/pages/${page.body.page.id}`, { body: { url: 'https://example.com/renamed' } })).status, 200);
      assert.equal((await api('PATCH', `/api/v1/pages/${page.body.page.id}`, { body: { urlId: 'paths-c' } })).status, 200);
      assert.equal((await api('POST', '/api/v1/votes', { query: { commentId: moved, direction: 'up', userId: 'voter' } })).status, 200);
      assert.equal((await api('DELETE', `/api/v1/comments/${moved}`)).status, 200);

      const hooks = () => receiver.received.filter((h) => h.path === '/paths');
      await eventually(async () => hooks().length >= 5, 30_000);
      await eventually(async () => (await pendingCount(api)) === 0, 30_000);
      const ofFlagged = hooks().filter((h) => h.json['id'] === flagged);
      assert.deepEqual(ofFlagged.map((h) => [h.method, h.json['approved']]), [['PUT', false]]);
      const ofMoved = hooks().filter((h) => h.json['id'] === moved);
      assert.deepEqual(
        ofMoved.map((h) => [h.method, h.json['urlId'], h.json['url'], h.json['votes']]),
        [
          ['PUT', 'paths-b', 'https://example.com/paths-a', 0],
          ['PUT', 'paths-b', 'https://example.com/renamed', 0],
          ['PUT', 'paths-c', 'https://example.com/renamed', 0],
          ['DELETE', 'paths-c', 'https://example.com/renamed', 1],
        ],
      );
      assert.equal(hooks().length, 5, 'the vote fired nothing');
    });

    test('sample payloads: the latest comments in delivery shape, two credits', async () => {
      const tenant = await server.addTenant();
      const api = as(server, tenant);
      for (let i = 0; i < 4; i++) await comment(api, 'samples', `sample ${i}`);
      const res = await api<{ payloads: Record<string, unknown>[]; creditsCost?: number }>('GET', '/api/v1/webhooks/sample-payloads', { query: { event: 'comment-created', limit: 2 } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.payloads.map((p) => p['comment']), ['sample 3', 'sample 2']);
      assert.match(String(res.body.payloads[0]!['date']), /Z$/);
      assert.equal(res.body.payloads[0]!['_id'], undefined);
      assert.equal((await api<{ payloads: unknown[] }>('GET', '/api/v1/webhooks/sample-payloads')).body.payloads.length, 3);
      for (const query of [{ limit: 11 }, { limit: 0 }, { event: 'comment-voted' }]) {
        assert.equal((await api('GET', '/api/v1/webhooks/sample-payloads', { query })).status, 400, JSON.stringify(query));
      }
      // Four comments at one credit, two sample reads at two, refusals free (read from the ledger, which charges nothing).
      const credits = async () => (await server.server.services.system.ask(TenantKind, tenant.tenantId, 'listUsage', {})).reduce((sum, day) => sum + day.apiCreditsUsed, 0);
      await eventually(async () => (await credits()) === 8, 30_000);
    });
  });
}

describe('webhook addresses', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('lmdb');
  });
  after(async () => {
    await server.destroy();
  });

  test('loopback, private and link-local addresses are refused unless the operator allows them', async () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://10.1.2.3/', 'http://192.168.0.10/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/']) {
      const res = await server.api('POST', '/api/v1/webhooks', { body: { url, event: 'comment-created' } });
      assert.equal(res.status, 400, url);
      assert.equal(res.body['code'], 'webhook-address-forbidden', url);
    }
    const res = await server.api<{ webhook: Subscription }>('POST', '/api/v1/webhooks', { body: { url: 'https://93.184.216.34/hook', event: 'comment-created' } });
    assert.equal(res.status, 200, 'a public address is taken');
    assert.equal((await server.api('DELETE', `/api/v1/webhooks/${res.body.webhook.id}`)).status, 200);
  });
});

describe('webhook deliveries given up', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('lmdb', { webhookAllowPrivate: true, webhookRetryMs: 50, webhookMaxAttempts: 2 });
  });
  after(async () => {
    await server.destroy();
  });

  test('after the last attempt an event is given up but still listed, and the next event of its comment goes', async () => {
    // Creates always fail, updates are taken.
    const receiver = await WebhookReceiver.start((hook) => (hook.method === 'POST' ? 503 : 200));
    try {
      const api = as(server, server.tenant);
      await subscribe(api, { url: receiver.url('/give-up'), event: 'comment-created', method: 'POST' });
      await subscribe(api, { url: receiver.url('/give-up'), event: 'comment-updated', method: 'PUT' });
      const id = await comment(api, 'give-up', 'first');
      assert.equal((await api('PATCH', `/api/v1/comments/${id}`, { body: { comment: 'second' } })).status, 200);
      await eventually(async () => receiver.received.some((h) => h.method === 'PUT'), 30_000);
      // The update went only once the create was given up: after exactly its two attempts.
      assert.deepEqual(receiver.received.map((h) => h.method), ['POST', 'POST', 'PUT']);
      await eventually(async () => (await pendingCount(api, { commentId: id })) === 1, 30_000);
      const listed = (await api<{ pendingWebhookEvents: Pending[] }>('GET', '/api/v1/pending-webhook-events', { query: { commentId: id } })).body.pendingWebhookEvents;
      assert.equal(listed.length, 1);
      assert.equal(listed[0]!.eventType, 0);
      assert.equal(listed[0]!.attemptCount, 2);
      assert.equal(listed[0]!.lastError['statusCode'], 503);
      // Deleting it removes it from the list.
      assert.equal((await api('DELETE', `/api/v1/pending-webhook-events/${listed[0]!._id}`)).status, 200);
      assert.equal(await pendingCount(api, { commentId: id }), 0);
    } finally {
      await receiver.close();
    }
  });
});
