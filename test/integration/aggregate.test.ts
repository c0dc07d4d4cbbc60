/**
 * POST /api/v1/aggregate on both storages: every operation, grouping, query operator and sort
 * against answers computed by hand; the resources that share a collection; child tenants;
 * refusals; credits; and the OpenAPI wire shape of every answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, type ProvisionedTenant } from '../../actors/tenant/provision.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import { readFileSync } from 'node:fs';
import { schemaErrors, successErrors } from '../fixtures/openapi.js';
import { repoFile } from '../fixtures/paths.js';
import { startTestServer, storages, type ApiResponse, type TestServer } from '../fixtures/server.js';

type Item = Record<string, Record<string, unknown>>;
interface Answer {
  status: string;
  data: Item[];
  stats?: { timeMS: number; scanned: number; creditsCost: number };
  creditsCost: number;
}

const day = (d: number) => `2024-01-0${d}T00:00:00.000Z`;
const ms = (d: number) => Date.parse(day(d));

/** Five comments of the tenant under test (hand-computed answers below refer to them). */
function comments(tenantId: string): Doc[] {
  const c = (id: string, urlId: string, votes: number, approved: boolean, commenterName: string, d: number, tags: string[], rating: number | null): Doc => ({
    _id: id,
    tenantId,
    urlId,
    votes,
    approved,
    commenterName,
    date: day(d),
    hashTags: tags.map((tag) => ({ id: `h-${tag}`, tag, url: null })),
    rating,
    commenterEmail: rating === null ? null : `${commenterName}@example.com`,
  });
  return [
    c('c1', 'a', 3, true, 'ann', 1, ['x', 'y'], 5),
    c('c2', 'a', -1, true, 'bob', 2, ['y'], null),
    c('c3', 'b', 0, false, 'ann', 3, [], 2),
    c('c4', 'b', 5, true, 'cid', 4, ['x', 'z', 'x'], 4),
    c('c5', 'c', 2, false, 'bob', 5, ['z'], null),
  ];
}

const put = (collection: string, doc: Doc): WriteOp => ({ op: 'put', collection, doc });

/** The specification's list of aggregatable resource names. */
function specResourceNames(): string[] {
  const text = readFileSync(repoFile('../shared/spec/endpoints.md'), 'utf8');
  const list = /Aggregatable resource names: ([^.]+)\./.exec(text);
  assert.ok(list, 'the specification lists the aggregatable resources');
  return list[1]!.split(',').map((name) => name.trim());
}

/** The names of that list this server stores, each with one document of the tenant (and one of another). */
const STORED_NEW: Record<string, { collection: string; doc: Omit<Doc, '_id'>; operation: unknown; answer: unknown }> = {
  Moderator: {
    collection: 'moderators',
    doc: { name: 'Mo', email: 'mo@example.com', userId: null, acceptedInvite: true, createdAt: day(1), moderationGroupIds: ['g'], deletedCount: 4, inviteHash: 'secret' },
    operation: { field: 'deletedCount', op: 'sum', alias: 'x' },
    answer: { numericValue: 4 },
  },
  TenantAuditLog: {
    collection: 'auditLogs',
    doc: { resourceName: 'comments', crudType: 'u', url: 'PATCH /api/v1/comments/c1', when: day(2), whenMs: ms(2), expireAt: ms(2) + 1e10 },
    operation: { field: 'crudType', op: 'distinct', alias: 'x' },
    answer: { distinctCounts: { u: 1 } },
  },
  UserNotification: {
    collection: 'notifications',
    doc: { recipient: 'u:1', userId: '1', urlId: 'a', type: 7, viewed: false, sent: true, createdAt: day(3), expireAt: ms(3) + 1e10 },
    operation: { field: 'type', op: 'max', alias: 'x' },
    answer: { numericValue: 7 },
  },
  UserSubscription: {
    collection: 'subscriptions',
    doc: { recipient: 'u:1', userId: '1', anonUserId: null, urlId: 'a', notificationFrequency: 1, createdAt: day(3) },
    operation: { field: 'urlId', op: 'distinct', alias: 'x' },
    answer: { distinctCounts: { a: 1 } },
  },
  EmailToSend: {
    collection: 'emailOutbox',
    doc: { state: 'failed', createdAt: ms(1), to: 'x@example.com', emailTemplateId: 'comment-user-mention', attempts: 3, transactional: false, data: {} },
    operation: { field: 'attempts', op: 'avg', alias: 'x' },
    answer: { numericValue: 3 },
  },
  BatchJob: {
    collection: 'jobs',
    doc: { type: 'user-erase', actorId: 'x', createdAt: ms(1) },
    operation: { field: 'type', op: 'distinct', alias: 'x' },
    answer: { distinctCounts: { 'user-erase': 1 } },
  },
  CustomEmailTemplateRenderError: {
    collection: 'emailTemplateRenderErrors',
    doc: { customTemplateId: 't1', error: 'ReferenceError', count: 5, createdAt: day(1), lastOccurredAt: day(2) },
    operation: { field: 'count', op: 'sum', alias: 'x' },
    answer: { numericValue: 5 },
  },
};

for (const storage of storages()) {
  describe(`aggregation on ${storage}`, () => {
    let t: TestServer;
    let other: ProvisionedTenant;
    let child1: ProvisionedTenant;
    let child2: ProvisionedTenant;
    let grandchild: ProvisionedTenant;

    /** Calls the endpoint; every success must fit the OpenAPI answer. */
    async function aggregate(body: unknown, query: Record<string, string | boolean> = {}, as?: ProvisionedTenant): Promise<ApiResponse<Answer>> {
      const headers = as ? { 'x-api-key': as.apiKey, 'x-tenant-id': as.tenantId } : undefined;
      const r = await t.api<Answer>('POST', '/api/v1/aggregate', { body, query, ...(headers ? { headers, auth: 'none' as const } : {}) });
      if (r.status === 200) {
        assert.deepEqual(successErrors('POST', '/api/v1/aggregate', r.body), []);
        assert.deepEqual(schemaErrors('AggregationResponse', r.body), []);
      }
      return r;
    }

    async function ok(body: unknown, query: Record<string, string | boolean> = {}, as?: ProvisionedTenant): Promise<Answer> {
      const r = await aggregate(body, query, as);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    }

    async function refused(body: unknown, code: string, status = 400, query: Record<string, string> = {}): Promise<Record<string, unknown>> {
      const r = await aggregate(body, query);
      assert.equal(r.status, status, JSON.stringify(r.body));
      const answer = r.body as unknown as Record<string, unknown>;
      assert.equal(answer['code'], code, JSON.stringify(answer));
      return answer;
    }

    const count = { field: 'id', op: 'count', alias: 'n' } as const;

    before(async () => {
      t = await startTestServer(storage);
      const store = t.server.services.store;
      const me = t.tenant.tenantId;
      other = await createTenant(store, { name: 'Stranger' });
      child1 = await createTenant(store, { name: 'Child one', managedByTenantId: me });
      child2 = await createTenant(store, { name: 'Child two', managedByTenantId: me });
      grandchild = await createTenant(store, { name: 'Grandchild', managedByTenantId: child1.tenantId });
      const vote = (id: string, tenantId: string, kind: string, direction: number): Doc => ({
        _id: id, tenantId, urlId: 'a', commentId: 'c1', userId: null, anonUserId: null, voterKey: id, direction, kind, createdAt: day(1),
      });
      const user = (id: string, kind: string, email: string): Doc => ({
        _id: id, tenantId: me, kind, username: id, email, displayName: null, avatarSrc: null, websiteUrl: null, isProfileActivityPrivate: true, createdAt: day(2),
      });
      await store.commit([
        ...comments(me).map((doc) => put('comments', doc)),
        put('comments', { ...comments(other.tenantId)[0]!, _id: 'o1', votes: 100 }),
        put('comments', { ...comments(child1.tenantId)[0]!, _id: 'k1' }),
        put('comments', { ...comments(child1.tenantId)[1]!, _id: 'k2' }),
        put('comments', { ...comments(child2.tenantId)[3]!, _id: 'k3' }),
        put('comments', { ...comments(grandchild.tenantId)[4]!, _id: 'g1' }),
        put('votes', vote('v1', me, 'authorized', 1)),
        put('votes', vote('v2', me, 'authorized', 1)),
        put('votes', vote('v3', me, 'anonymous', -1)),
        put('votes', vote('v4', me, 'pending', 1)),
        put('votes', vote('v5', other.tenantId, 'authorized', 1)),
        put('users', user('s1', 'sso', 'one@example.com')),
        put('users', { ...user('s2', 'sso', 'two@example.com'), groupIds: ['g1', 'g2'] }),
        put('users', user('u1', 'commenter', 'three@example.com')),
        put('widgetConfigs', { _id: `${me}:tenant`, tenantId: me, urlId: null, config: { hideAvatars: true, locale: 'de', allowedLanguages: ['de', 'en'] }, updatedAt: day(3) }),
        put('widgetConfigs', { _id: `${me}:page`, tenantId: me, urlId: 'a', config: { hideAvatars: false }, updatedAt: day(4) }),
        ...Object.entries(STORED_NEW).flatMap(([name, { collection, doc }]) => [
          put(collection, { ...doc, _id: `${name}-mine`, tenantId: me }),
          put(collection, { ...doc, _id: `${name}-other`, tenantId: other.tenantId }),
        ]),
      ]);
    });

    after(async () => {
      await t.destroy();
    });

    it('computes every operation over the whole resource', async () => {
      const answer = await ok(
        {
          resourceName: 'Comment',
          operations: [
            count,
            { field: 'votes', op: 'sum' },
            { field: 'votes', op: 'avg' },
            { field: 'votes', op: 'min', alias: 'minVotes' },
            { field: 'votes', op: 'max', alias: 'maxVotes' },
            { field: 'commenterName', op: 'min', alias: 'firstName' },
            { field: 'date', op: 'max', alias: 'latest' },
            { field: 'commenterName', op: 'countDistinct' },
            { field: 'approved', op: 'distinct' },
            { field: 'rating', op: 'avg' },
            { field: 'rating', op: 'count', alias: 'rated' },
            { field: 'commenterEmail', op: 'distinct', alias: 'emails' },
          ],
        },
        { includeStats: true },
      );
      assert.deepEqual(answer.data, [
        {
          n: { numericValue: 5 },
          votes_sum: { numericValue: 9 },
          votes_avg: { numericValue: 1.8 },
          minVotes: { numericValue: -1 },
          maxVotes: { numericValue: 5 },
          firstName: { stringValue: 'ann' },
          latest: { numericValue: ms(5) },
          commenterName_countDistinct: { distinctCount: 3 },
          approved_distinct: { distinctCounts: { true: 3, false: 2 } },
          rating_avg: { numericValue: 11 / 3 },
          rated: { numericValue: 3 },
          emails: { distinctCounts: { 'ann@example.com': 2, 'cid@example.com': 1 } },
        },
      ]);
      assert.equal(answer.stats?.scanned, 5);
      assert.equal(typeof answer.stats?.timeMS, 'number');
    });

    it('groups by one and by two fields, and sorts by an alias or a group field either way', async () => {
      const byUrl = await ok({ resourceName: 'Comment', groupBy: ['urlId'], operations: [count, { field: 'votes', op: 'max', alias: 'top' }], sort: { field: 'top', dir: 'desc' } });
      assert.deepEqual(byUrl.data, [
        { groups: { urlId: 'b' }, n: { numericValue: 2 }, top: { numericValue: 5 } },
        { groups: { urlId: 'a' }, n: { numericValue: 2 }, top: { numericValue: 3 } },
        { groups: { urlId: 'c' }, n: { numericValue: 1 }, top: { numericValue: 2 } },
      ]);
      const ascending = await ok({ resourceName: 'Comment', groupBy: ['urlId'], operations: [count, { field: 'votes', op: 'max', alias: 'top' }], sort: { field: 'top', dir: 'asc' } });
      assert.deepEqual(ascending.data.map((item) => item['groups']!['urlId']), ['c', 'a', 'b']);
      const byName = await ok({ resourceName: 'Comment', groupBy: ['commenterName'], operations: [{ field: 'votes', op: 'sum', alias: 's' }], sort: { field: 'commenterName', dir: 'desc' } });
      assert.deepEqual(byName.data, [
        { groups: { commenterName: 'cid' }, s: { numericValue: 5 } },
        { groups: { commenterName: 'bob' }, s: { numericValue: 1 } },
        { groups: { commenterName: 'ann' }, s: { numericValue: 3 } },
      ]);
      const two = await ok({ resourceName: 'Comment', groupBy: ['urlId', 'approved'], operations: [count], sort: { field: 'urlId', dir: 'asc' } });
      const pairs = two.data.map((item) => [item['groups']!['urlId'], item['groups']!['approved'], item['n']!['numericValue']]);
      assert.deepEqual(pairs.sort(), [['a', 'true', 2], ['b', 'false', 1], ['b', 'true', 1], ['c', 'false', 1]]);
      const byRating = await ok({ resourceName: 'Comment', groupBy: ['rating'], operations: [count], sort: { field: 'rating', dir: 'asc' } });
      // Numbers sort as numbers; the group without a value has no `rating` and comes last.
      assert.deepEqual(byRating.data, [
        { groups: { rating: '2' }, n: { numericValue: 1 } },
        { groups: { rating: '4' }, n: { numericValue: 1 } },
        { groups: { rating: '5' }, n: { numericValue: 1 } },
        { groups: {}, n: { numericValue: 2 } },
      ]);
    });

    it('filters with each query operator, on stored and on nested fields', async () => {
      const n = async (query: unknown[]) => (await ok({ resourceName: 'Comment', query, operations: [count] }, { includeStats: true }));
      const cases: Array<[unknown[], number]> = [
        [[{ key: 'approved', value: true, operator: 'eq' }], 3],
        [[{ key: 'commenterName', value: 'ann', operator: 'not_eq' }], 3],
        [[{ key: 'votes', value: 1, operator: 'greater_than' }], 3],
        [[{ key: 'votes', value: 0, operator: 'less_than' }], 1],
        [[{ key: 'date', value: day(3), operator: 'less_than' }], 2],
        [[{ key: 'date', value: ms(3), operator: 'greater_than' }], 2],
        [[{ key: 'date', value: ms(2), operator: 'greater_than' }, { key: 'date', value: day(5), operator: 'less_than' }], 2],
        [[{ key: 'commenterName', value: 'n', operator: 'contains' }], 2],
        [[{ key: 'hashTags.tag', value: 'z', operator: 'contains' }], 2],
        [[{ key: 'hashTags.tag', value: 'y', operator: 'eq' }], 2],
        [[{ key: 'hashTags.tag', value: 'x', operator: 'not_eq' }], 3],
        [[{ key: 'approved', value: true, operator: 'eq' }, { key: 'urlId', value: 'a', operator: 'not_eq' }], 1],
        [[{ key: 'approved', value: true, operator: 'eq' }, { key: 'approved', value: false, operator: 'eq' }], 0],
      ];
      for (const [query, expected] of cases) {
        const answer = await n(query);
        assert.deepEqual(answer.data, [{ n: { numericValue: expected } }], JSON.stringify(query));
      }
      // Storage evaluates what it can: only matching documents are read.
      assert.equal((await n([{ key: 'approved', value: true, operator: 'eq' }])).stats?.scanned, 3);
      assert.equal((await n([{ key: 'commenterName', value: 'n', operator: 'contains' }])).stats?.scanned, 5);
    });

    it('expands array fields element by element', async () => {
      const answer = await ok({
        resourceName: 'Comment',
        operations: [
          { field: 'hashTags.tag', op: 'distinct', expandArray: true, alias: 'tags' },
          { field: 'hashTags.tag', op: 'countDistinct', expandArray: true, alias: 'kinds' },
          { field: 'hashTags.tag', op: 'count', expandArray: true, alias: 'uses' },
          { field: 'hashTags.tag', op: 'count', alias: 'withField' },
        ],
      });
      assert.deepEqual(answer.data, [
        { tags: { distinctCounts: { x: 3, y: 2, z: 2 } }, kinds: { distinctCount: 3 }, uses: { numericValue: 7 }, withField: { numericValue: 5 } },
      ]);
      const groups = await ok({ resourceName: 'SSOUser', operations: [{ field: 'groupIds', op: 'distinct', expandArray: true, alias: 'g' }] });
      assert.deepEqual(groups.data, [{ g: { distinctCounts: { g1: 1, g2: 1 } } }]);
    });

    it('tells apart the resources that share a collection, and reads nested settings', async () => {
      const votes = async (resourceName: string) => (await ok({ resourceName, operations: [count, { field: 'direction', op: 'sum', alias: 'net' }] })).data[0];
      assert.deepEqual(await votes('Vote'), { n: { numericValue: 2 }, net: { numericValue: 2 } });
      assert.deepEqual(await votes('AnonymousVote'), { n: { numericValue: 1 }, net: { numericValue: -1 } });
      assert.deepEqual(await votes('PendingVote'), { n: { numericValue: 1 }, net: { numericValue: 1 } });
      assert.deepEqual((await ok({ resourceName: 'SSOUser', operations: [count] })).data, [{ n: { numericValue: 2 } }]);
      assert.deepEqual((await ok({ resourceName: 'User', operations: [count, { field: 'email', op: 'distinct', alias: 'e' }] })).data, [
        { n: { numericValue: 1 }, e: { distinctCounts: { 'three@example.com': 1 } } },
      ]);
      const config = await ok({
        resourceName: 'CustomConfig',
        query: [{ key: 'hideAvatars', value: true, operator: 'eq' }],
        operations: [count, { field: 'locale', op: 'distinct', alias: 'l' }, { field: 'allowedLanguages', op: 'distinct', expandArray: true, alias: 'langs' }],
      });
      assert.deepEqual(config.data, [{ n: { numericValue: 1 }, l: { distinctCounts: { de: 1 } }, langs: { distinctCounts: { de: 1, en: 1 } } }]);
      const empty = await ok({ resourceName: 'Page', groupBy: ['urlId'], operations: [count, { field: 'commentCount', op: 'avg', alias: 'avg' }] });
      assert.deepEqual(empty.data, []);
      const none = await ok({ resourceName: 'Page', operations: [count, { field: 'commentCount', op: 'avg', alias: 'avg' }, { field: 'title', op: 'min', alias: 'm' }] });
      assert.deepEqual(none.data, [{ n: { numericValue: 0 }, avg: {}, m: {} }]);
    });

    it("accepts every resource of the specification's list that this server stores, and says which it does not", async () => {
      const spec = specResourceNames();
      assert.equal(spec.length, 37);
      const accepted: string[] = [];
      for (const resourceName of spec) {
        const r = await aggregate({ resourceName, operations: [count] });
        if (r.status === 200) {
          accepted.push(resourceName);
          continue;
        }
        const answer = r.body as unknown as Record<string, unknown>;
        assert.deepEqual([r.status, answer['code']], [404, 'aggregation-resource-not-stored'], `${resourceName}: ${JSON.stringify(answer)}`);
        assert.match(String(answer['reason']), new RegExp(`"${resourceName}" is a resource of the API that this server does not store`));
        assert.ok((answer['validResourceNames'] as string[]).includes('Comment'));
        assert.deepEqual(schemaErrors('AggregationAPIError', answer), []);
      }
      assert.deepEqual(accepted.sort(), [
        'AnonymousVote', 'BannedUser', 'BatchJob', 'BlockedUser', 'Comment', 'CustomConfig', 'CustomEmailTemplateRenderError', 'EmailToSend', 'Moderator', 'Page', 'PageReact',
        'PendingVote', 'QuestionResult', 'SSOUser', 'Tenant', 'TenantAuditLog', 'TenantBadge', 'TenantDailyUsage', 'TenantPackage', 'User', 'UserBadge',
        'UserBadgeProgress', 'UserNotification', 'UserSubscription', 'Vote',
      ]);
      for (const [resourceName, { operation, answer }] of Object.entries(STORED_NEW)) {
        const result = await ok({ resourceName, operations: [count, operation] });
        assert.deepEqual(result.data, [{ n: { numericValue: 1 }, x: answer }], resourceName);
      }
      // Secrets and internal keys are not fields.
      await refused({ resourceName: 'Moderator', operations: [{ field: 'inviteHash', op: 'count' }] }, 'aggregation-unknown-field');
      await refused({ resourceName: 'UserNotification', operations: [{ field: 'recipient', op: 'count' }] }, 'aggregation-unknown-field');
    });

    it('aggregates over the child tenants of a parent the caller manages, and only then', async () => {
      const me = t.tenant.tenantId;
      const children = await ok({ resourceName: 'Comment', groupBy: ['tenantId'], operations: [count], sort: { field: 'n', dir: 'desc' } }, { parentTenantId: me });
      assert.deepEqual(children.data, [
        { groups: { tenantId: child1.tenantId }, n: { numericValue: 2 } },
        { groups: { tenantId: child2.tenantId }, n: { numericValue: 1 } },
      ]);
      const tenants = await ok({ resourceName: 'Tenant', operations: [count, { field: 'name', op: 'distinct', alias: 'names' }] }, { parentTenantId: me });
      assert.deepEqual(tenants.data, [{ n: { numericValue: 2 }, names: { distinctCounts: { 'Child one': 1, 'Child two': 1 } } }]);
      assert.deepEqual((await ok({ resourceName: 'Tenant', operations: [count] })).data, [{ n: { numericValue: 1 } }]);
      const nested = await ok({ resourceName: 'Comment', operations: [count] }, { parentTenantId: child1.tenantId });
      assert.deepEqual(nested.data, [{ n: { numericValue: 1 } }]);
      const scoped = await ok({ resourceName: 'Comment', query: [{ key: 'tenantId', value: child2.tenantId, operator: 'eq' }], operations: [count] }, { parentTenantId: me });
      assert.deepEqual(scoped.data, [{ n: { numericValue: 1 } }]);
      // A child aggregating on its own sees only its own comments.
      assert.deepEqual((await ok({ resourceName: 'Comment', operations: [count] }, {}, child1)).data, [{ n: { numericValue: 2 } }]);
      for (const parentTenantId of [other.tenantId, grandchild.tenantId, 'no-such-tenant']) {
        await refused({ resourceName: 'Comment', operations: [count] }, 'parent-tenant-forbidden', 403, { parentTenantId });
      }
      const r = await aggregate({ resourceName: 'Comment', operations: [count] }, { parentTenantId: me }, child1);
      assert.equal(r.status, 403);
    });

    it('refuses what does not fit, naming it, and changes nothing', async () => {
      const unknown = await refused({ resourceName: 'Nope', operations: [count] }, 'aggregation-unknown-resource');
      assert.ok((unknown['validResourceNames'] as string[]).includes('Comment'));
      assert.ok(!(unknown['validResourceNames'] as string[]).includes('SpamEvent'));
      assert.deepEqual(schemaErrors('AggregationAPIError', unknown), []);
      const field = await refused({ resourceName: 'Comment', operations: [{ field: 'apiSecret', op: 'count' }] }, 'aggregation-unknown-field');
      assert.match(String(field['reason']), /apiSecret/);
      await refused({ resourceName: 'Tenant', operations: [{ field: 'apiSecret', op: 'distinct' }] }, 'aggregation-unknown-field');
      await refused({ resourceName: 'Comment', groupBy: ['nope'], operations: [count] }, 'aggregation-unknown-field');
      await refused({ resourceName: 'Comment', query: [{ key: 'nope', value: 1, operator: 'eq' }], operations: [count] }, 'aggregation-unknown-field');
      const invalid: unknown[] = [
        { resourceName: 'Comment', operations: [{ field: 'commenterName', op: 'sum' }] },
        { resourceName: 'Comment', operations: [{ field: 'approved', op: 'max' }] },
        { resourceName: 'Comment', operations: [{ field: 'hashTags.tag', op: 'distinct' }] },
        { resourceName: 'Comment', operations: [{ field: 'votes', op: 'sum', expandArray: true }] },
        { resourceName: 'Comment', operations: [count, { field: 'votes', op: 'sum', alias: 'n' }] },
        { resourceName: 'Comment', operations: [{ field: 'votes', op: 'sum', alias: 'groups' }] },
        { resourceName: 'Comment', groupBy: ['hashTags.tag'], operations: [count] },
        { resourceName: 'Comment', groupBy: ['urlId', 'urlId'], operations: [count] },
        { resourceName: 'Comment', query: [{ key: 'approved', value: 'yes', operator: 'eq' }], operations: [count] },
        { resourceName: 'Comment', query: [{ key: 'approved', value: true, operator: 'greater_than' }], operations: [count] },
        { resourceName: 'Comment', query: [{ key: 'votes', value: 1, operator: 'contains' }], operations: [count] },
        { resourceName: 'Comment', query: [{ key: 'date', value: 'yesterday', operator: 'less_than' }], operations: [count] },
        { resourceName: 'Comment', operations: [{ field: 'urlId', op: 'distinct', alias: 'd' }], sort: { field: 'd', dir: 'asc' } },
        { resourceName: 'Comment', operations: [count], sort: { field: 'votes', dir: 'asc' } },
      ];
      for (const body of invalid) await refused(body, 'aggregation-invalid-operation');
      await refused({ resourceName: 'Comment', operations: [{ field: 'id', op: 'median' }] }, 'invalid-param');
      await refused({ resourceName: 'Comment', operations: [] }, 'invalid-param');
      await refused({ resourceName: 'Comment', operations: [count], extra: 1 }, 'unexpected-param');
      await refused({ operations: [count] }, 'missing-param');
      await refused('{"resourceName": ', 'invalid-json');
      await refused({ resourceName: 'Comment', operations: [count], query: [{ key: 'votes', value: null, operator: 'eq' }] }, 'invalid-param');
      assert.equal((await t.api('POST', '/api/v1/aggregate', { auth: 'none', body: { resourceName: 'Comment', operations: [count] } })).status, 401);
    });

    it('charges one credit per 500 documents scanned, at least one, after the run', async () => {
      const me = t.tenant.tenantId;
      const reacts: WriteOp[] = [];
      for (let i = 0; i < 1001; i++) {
        reacts.push(put('pageReacts', { _id: `r${i}`, tenantId: me, urlId: `p${i % 3}`, kind: 'react', reactId: 'heart', userKey: `a:${i}`, userId: null, createdAt: day(1) }));
      }
      await t.server.services.store.commit(reacts);
      const usage = async () => {
        const r = await t.api<{ tenantDailyUsages: Array<{ apiCreditsUsed: number }> }>('GET', '/api/v1/tenant-daily-usage');
        return r.body.tenantDailyUsages.reduce((sum, d) => sum + d.apiCreditsUsed, 0);
      };
      const before = await usage();
      const r = await aggregate({ resourceName: 'PageReact', groupBy: ['urlId'], operations: [count] }, { includeStats: true });
      assert.equal(r.status, 200);
      assert.equal(r.body.stats?.scanned, 1001);
      assert.equal(r.body.stats?.creditsCost, 3);
      assert.equal(r.body.creditsCost, 3, 'at the top level, as every variable-cost answer');
      assert.equal(r.headers.get('x-credits-cost'), '3');
      const small = await aggregate({ resourceName: 'Comment', query: [{ key: 'urlId', value: 'none', operator: 'eq' }], operations: [count] });
      assert.equal(small.headers.get('x-credits-cost'), '1');
      assert.equal(small.body.stats, undefined);
      assert.equal(small.body.creditsCost, 1, 'also without includeStats');
      await refused({ resourceName: 'Comment', operations: [{ field: 'nope', op: 'count' }] }, 'aggregation-unknown-field');
      // The first listing costs 1 and each aggregation its own; the refusal nothing.
      assert.equal(await usage(), before + 1 + 3 + 1);
    });
  });
}
