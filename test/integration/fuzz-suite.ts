/**
 * Property-based fuzzing of every route: requests generated from the route's own schemas
 * (params, query, body), valid and invalid, sent one at a time to a real server. For every
 * answer: never a 5xx, always JSON with `status` (OAuth endpoints: RFC 6749 `{error,
 * error_description}` refusals; consent pages: HTML or a redirect); a success answer of an OpenAPI operation
 * matches its 200 schema; a refused request stores nothing (every write reaching storage is
 * recorded, and the server is let settle before and after each request, so any write made
 * while a refused request ran is that request's).
 *
 * Seeded: FUZZ_SEED replays a run (the seed is printed; fast-check's failure report adds the
 * counterexample's path), FUZZ_RUNS sets the requests per route.
 *
 * One file per storage (fuzz.test.ts, fuzz-mongodb.test.ts), so each stays within a test
 * file's time limit as routes are added.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { EmailOutboxKind, OUTBOX_STATES } from '../../actors/email/protocol.js';
import { PENDING_COUNTS } from '../../actors/page/pending-counts.js';
import { PageKind } from '../../actors/page/protocol.js';
import { runsUnderWay } from '../../actors/import/data-job-runs.js';
import type { AnyRoute, Schema } from '../../http/route.js';
import { ROUTES } from '../../http/routes/index.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import type { WriteOp } from '../../storage/store.js';
import { eventually } from '../fixtures/eventually.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { checkAnswer } from '../fixtures/openapi.js';
import { type Hints, invalidValue, validValue } from '../fixtures/schema-arbitrary.js';
import { startTestServer, type StorageName, type TestServer } from '../fixtures/server.js';

const SEED = process.env['FUZZ_SEED'] ? Number(process.env['FUZZ_SEED']) : 20_251_124;
const RUNS = process.env['FUZZ_RUNS'] ? Number(process.env['FUZZ_RUNS']) : undefined;
/** Collections every call may write, refused or not: the ledger counts errors too. */
const ACCOUNTING = new Set(['tenantDailyUsage']);

/** Records every write that reaches storage. */
class RecordingStore extends InstrumentedStore {
  readonly writes: string[] = [];

  override async commit(ops: readonly WriteOp[]): Promise<void> {
    await super.commit(ops);
    for (const op of ops) this.writes.push(`${op.op} ${op.collection}/${op.op === 'put' || op.op === 'insert' ? op.doc._id : op.id}`);
  }
}

type Body = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; type?: string; latin1?: boolean };

interface FuzzRequest {
  /** Another method than the route's, sometimes. */
  method?: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** Sent as is after the generated query (bad encodings, repeated names). */
  rawQuery: string;
  body: Body;
  auth: 'key' | 'none' | 'wrong';
}

const noBody: fc.Arbitrary<Body> = fc.constant({ kind: 'none' });
const rawBodies: fc.Arbitrary<Body> = fc.oneof(
  fc.constantFrom('{', '[1,', 'nul', '"text"', '{"a":1}{', '\u0000', '{"__proto__":{"x":1}}', '[]', 'null', '1e999').map((text): Body => ({ kind: 'raw', text })),
  fc.constant<Body>({ kind: 'raw', text: '{}', type: 'text/plain' }),
  fc.constant<Body>({ kind: 'raw', text: '\xff\xfe{', latin1: true }),
);
const rawQueries = fc.constantFrom('', 'urlId=%E0%A4%A', 'x=%zz', 'urlId=%ED%A0%80', 'limit=1e309', 'skip=0x10', 'page=-0', 'asTree=maybe', 'urlId=a&urlId=b', 'tenantId=other');

const agent = new Agent({ keepAlive: true });

/**
 * One HTTP request to the server on `port`, any method with any body (fetch sends no body with
 * GET), the path sent exactly as given (a URL parser would remove dot segments, `.` and `%2E`,
 * and send the request elsewhere than generated).
 */
function httpSend(port: number, path: string, method: string, headers: Record<string, string>, body: Buffer | undefined): Promise<{ status: number; text: string; type: string; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    // Node's client frames a GET body with neither a length nor chunks unless told the length.
    const framed = body === undefined ? headers : { ...headers, 'content-length': String(body.length) };
    const req = request({ host: '127.0.0.1', port, path, method, headers: framed, agent, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), type: res.headers['content-type'] ?? '', location: res.headers.location }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A generated query or set of path parameters as fields (a value of another type as none). */
function fields(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Query values are text: numbers and booleans as written, lists as repeated names. */
function queryText(query: Record<string, unknown>, raw: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields(query))) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  }
  return [params.toString(), raw].filter(Boolean).join('&');
}

/** A path segment, percent-encoded; text that is not well-formed goes byte by byte. */
function segment(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

function pathOf(route: AnyRoute, params: Record<string, unknown>): string {
  const values = fields(params);
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => (values[name] === undefined ? '' : segment(values[name])));
}

/** Generated requests for one route: mostly valid by its schemas, the rest with one defect. */
function requests(route: AnyRoute, hints: Hints): fc.Arbitrary<FuzzRequest> {
  const params = (route.params ?? { type: 'object', properties: {} }) as Schema;
  const query = (route.query ?? { type: 'object', properties: {} }) as Schema;
  const validBody: fc.Arbitrary<Body> = route.body ? validValue(route.body, hints).map((value): Body => ({ kind: 'json', value })) : noBody;
  const valid = fc.record({
    params: validValue(params, hints) as fc.Arbitrary<Record<string, unknown>>,
    query: validValue(query, hints) as fc.Arbitrary<Record<string, unknown>>,
    rawQuery: fc.constant(''),
    body: validBody,
    auth: fc.constant<FuzzRequest['auth']>('key'),
  });
  const defects: fc.Arbitrary<FuzzRequest>[] = [
    fc.tuple(valid, invalidValue(query, hints)).map(([r, bad]) => ({ ...r, query: bad as Record<string, unknown> })),
    fc.tuple(valid, rawQueries).map(([r, rawQuery]) => ({ ...r, rawQuery })),
    fc.tuple(valid, route.body ? fc.oneof(invalidValue(route.body, hints).map((value): Body => ({ kind: 'json', value })), rawBodies) : fc.constant<Body>({ kind: 'json', value: { unexpected: true } })).map(([r, body]) => ({ ...r, body })),
  ];
  if (route.params) defects.push(fc.tuple(valid, invalidValue(params, hints)).map(([r, bad]) => ({ ...r, params: bad as Record<string, unknown> })));
  // HEAD and OPTIONS answer without a body by design. Methods uWebSockets.js does not know
  // (QUERY, PROPFIND) never reach the server: the reverse proxy answers them (docs/operations.md).
  defects.push(fc.tuple(valid, fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE')).map(([r, method]) => ({ ...r, method })));
  if (route.access === 'tenant') defects.push(fc.tuple(valid, fc.constantFrom<FuzzRequest['auth']>('none', 'wrong')).map(([r, auth]) => ({ ...r, auth })));
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: fc.oneof(...defects) });
}

/**
 * Fuzzes every route on one storage, `runs` generated requests per route (FUZZ_RUNS overrides).
 */
export function fuzzEveryRoute(storage: StorageName, runs: number): void {
  const RUNS_PER_ROUTE = RUNS ?? runs;
  describe(`fuzzing every route on ${storage}`, () => {
    let t: TestServer;
    let store: RecordingStore;
    let hints: Hints;

    before(async () => {
      t = await startTestServer(storage, {}, {
        store: (config) =>
          (store = new RecordingStore(
            createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS),
          )),
      });
      const post = async (path: string, body: unknown, query: Record<string, string> = {}) => {
        const r = await t.api<Record<string, any>>('POST', path, { body, query });
        assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
        return r.body;
      };
      const urlId = '/fuzz';
      const base = { commenterName: 'Fuzz', commenterEmail: 'fuzz@fuzz.example', url: 'https://blog.example/fuzz', urlId, locale: 'en' };
      const withPoll = (await post('/api/v1/comments', { ...base, comment: 'poll #fuzz', userId: 'fuzz-user', poll: { question: 'Q?', options: [{ label: 'a' }, { label: 'b' }] } })).comment;
      const reply = (await post('/api/v1/comments', { ...base, comment: 'reply', parentId: withPoll._id })).comment;
      const vote = await post('/api/v1/votes', {}, { commentId: reply._id, direction: 'up', userId: 'fuzz-user' });
      const poll = (await t.api<{ poll: { options: { id: string }[] } }>('GET', `/api/v1/polls/${withPoll._id}`)).body.poll;
      const pollVote = (await post('/api/v1/poll-votes', { commentId: withPoll._id, optionId: poll.options[0]!.id, anonUserId: 'fuzz-anon' })).pollVote;
      const page = (await post('/api/v1/pages', { urlId: '/fuzz-page', url: 'https://blog.example/p', title: 'P' })).page;
      await post('/api/v1/domain-configs', { domain: 'fuzz.example' });
      await post('/api/v1/hash-tags', { tag: '#fuzztag' });
      const definitions = (await t.api<{ definitions: { emailTemplateId: string }[] }>('GET', '/api/v1/email-templates/definitions')).body.definitions;
      const resources = (await t.api<{ validResourceNames: string[] }>('POST', '/api/v1/aggregate', { body: { resourceName: '?', operations: [] } })).body.validResourceNames;
      const question = (await post('/api/v1/question-configs', { name: 'Fuzz', question: 'Fuzz?', type: 'nps', reportingOrder: 0 })).questionConfig;
      const questionResult = (await post('/api/v1/question-results', { urlId, questionId: question._id, value: 5, commentId: reply._id })).questionResult;
      await post('/api/v1/sso-users', { id: 'fuzz-sso', username: 'fuzz-sso', email: 'fuzz-sso@fuzz.example' });
      const feedPost = (await post('/api/v1/feed-posts', { fromUserId: 'fuzz-sso', title: 'Fuzz post', tags: ['fuzz'] })).feedPost;
      const badge = (await post('/api/v1/tenant-badges', { type: 4, name: 'Fuzz badge' })).tenantBadge;
      const userBadge = (await post('/api/v1/user-badges', { userId: 'fuzz-user', badgeId: badge._id })).userBadge;
      hints = {
        emailTemplateId: definitions.map((d) => d.emailTemplateId),
        resourceName: resources,
        field: ['id', 'votes', 'urlId', 'date'],
        op: ['count', 'sum', 'max', 'distinct'],
        tenantId: [t.tenant.tenantId],
        id: [withPoll._id, reply._id, vote.voteId, page.id, pollVote.id, withPoll.userId, question._id, questionResult._id, feedPost._id, badge._id, userBadge._id],
        commentId: [withPoll._id, reply._id],
        parentId: [withPoll._id, 'null'],
        optionId: poll.options.map((o) => o.id),
        urlId: [urlId, '/fuzz-page', '/fuzz-new'],
        url: ['https://blog.example/fuzz'],
        domain: ['fuzz.example'],
        domainToUpdate: ['fuzz.example'],
        tag: ['#fuzztag', 'fuzztag'],
        userId: ['fuzz-user'],
        anonUserId: ['fuzz-anon'],
        direction: ['up', 'down'],
        locale: ['en'],
        commenterName: ['Fuzz'],
        comment: ['text #fuzz'],
        startTime: [0],
        questionId: [question._id],
        questionIds: [question._id],
        aggId: ['fuzz-agg'],
        value: [5],
        questionValues: [{ [question._id]: 7 }],
        postId: [feedPost._id],
        postIds: [[feedPost._id]],
        afterId: [feedPost._id],
        fromUserId: ['fuzz-sso'],
        badgeId: [badge._id],
        reactType: ['heart'],
        tags: [['fuzz']],
        voteId: [vote.voteId],
      };
    });

    after(async () => {
      agent.destroy();
      await t.destroy();
    });

    /**
     * Lets every write earlier requests left for later land: charges, actor messages, event-log
     * appends, vote counts a page writes some time after the votes (as a tenant-wide search has
     * them written), and emails being sent (the outbox records each once it is sent).
     */
    async function settle(): Promise<void> {
      const { charges, system } = t.server.services;
      const tenantId = t.tenant.tenantId;
      for (let seen = -1; seen !== store.writes.length; ) {
        seen = store.writes.length;
        await charges.flush();
        const lagging = await store.find(PENDING_COUNTS, {});
        await Promise.all(lagging.map((page) => system.ask(PageKind, page._id, 'flushCounts', null)));
        await eventually(async () => (await system.ask(EmailOutboxKind, tenantId, 'list', { state: OUTBOX_STATES.queued })).length === 0, 30_000);
        // Import and export jobs started by earlier requests run in the background.
        await eventually(async () => runsUnderWay(system) === 0, 60_000);
        assert.ok(await system.drain(30_000), 'the actors did not settle');
      }
    }

    /** Answers by route and status, reported at the end: shows how deep the requests got. */
    const statuses = new Map<string, Map<string, number>>();

    async function send(route: AnyRoute, r: FuzzRequest): Promise<void> {
      const path = pathOf(route, r.params);
      const target = `${path}?${queryText(r.query, r.rawQuery)}`;
      // The site of the tenant's domain configuration: public routes admit only its pages.
      const headers: Record<string, string> = { origin: 'https://fuzz.example' };
      if (route.access === 'tenant' && r.auth !== 'none') {
        headers['x-tenant-id'] = t.tenant.tenantId;
        headers['x-api-key'] = r.auth === 'key' ? t.tenant.apiKey : 'wrong-key';
      }
      let body: Buffer | undefined;
      if (r.body.kind === 'json' && route.form) {
        // Form routes get their fields form-encoded (values as text, lists as repeated names).
        body = Buffer.from(queryText(fields(r.body.value), ''));
        headers['content-type'] = 'application/x-www-form-urlencoded';
      } else if (r.body.kind === 'json') {
        body = Buffer.from(JSON.stringify(r.body.value) ?? 'null');
        headers['content-type'] = 'application/json';
      } else if (r.body.kind === 'raw') {
        body = Buffer.from(r.body.text, r.body.latin1 ? 'latin1' : 'utf8');
        headers['content-type'] = r.body.type ?? 'application/json';
      }
      await settle();
      const mark = store.writes.length;
      const method = r.method ?? route.method;
      const res = await httpSend(t.server.port, target, method, headers, body);
      const text = res.text;
      const what = `${method} ${target} ${body?.toString('utf8') ?? ''}`.slice(0, 2000);
      assert.ok(res.status < 500, `${what}\n→ ${res.status} ${text.slice(0, 500)}`);
      // The route that answered (another method may reach another route of the path) decides the shape.
      const answering = ROUTES.find((other) => other.method === method && other.path === route.path);
      if (answering?.answers === 'page') {
        if (res.status === 302 || res.status === 303) assert.ok(res.location, `${what}\n→ ${res.status} without Location`);
        else assert.match(res.type, /^text\/html/, `${what}\n→ ${res.status} ${res.type}: ${text.slice(0, 200)}`);
        count(route, `${res.status}`);
        if (res.status < 300) return;
        await settle();
        assertNothingStored(mark, what, res.status, text);
        return;
      }
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        assert.fail(`${what}\n→ ${res.status}, not JSON: ${text.slice(0, 200)}`);
      }
      assert.ok(typeof answer === 'object' && answer !== null, `${what}\n→ ${res.status} not an object: ${text.slice(0, 200)}`);
      const got = answer as { status?: unknown; code?: unknown; error?: unknown; error_description?: unknown };
      if (answering?.answers === 'oauth') {
        // RFC 6749 refusals: `error` and `error_description`; success answers are the protocol's own objects.
        if (res.status >= 300) assert.ok(typeof got.error === 'string' && typeof got.error_description === 'string', `${what}\n→ ${res.status} not an OAuth error: ${text.slice(0, 200)}`);
      } else assert.ok('status' in got, `${what}\n→ ${res.status} without status: ${text.slice(0, 200)}`);
      count(route, `${res.status}${res.status < 300 ? '' : ` ${String(got.code ?? got.error)}`}`);
      if (res.status < 300) {
        checkAnswer(method, path, res.status, answer);
        return;
      }
      await settle();
      assertNothingStored(mark, what, res.status, text);
    }

    function count(route: AnyRoute, outcome: string): void {
      const byOutcome = statuses.get(`${route.method} ${route.path}`) ?? new Map<string, number>();
      statuses.set(`${route.method} ${route.path}`, byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1));
    }

    function assertNothingStored(mark: number, what: string, status: number, text: string): void {
      const stored = store.writes.slice(mark).filter((w) => !ACCOUNTING.has(w.split(' ')[1]!.split('/')[0]!));
      assert.deepEqual(stored, [], `${what}\n→ ${status} ${text.slice(0, 300)}\nwas refused but stored: ${stored.join(', ')}`);
    }

    test(`generated requests to every route (seed ${SEED}, ${RUNS_PER_ROUTE} per route)`, async (ctx) => {
      ctx.diagnostic(`fuzz seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
      for (const [i, route] of ROUTES.entries()) {
        // The widget's site stays configured (requests before may have removed it), so public
        // routes admit the requests and their handlers run.
        await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'fuzz.example' } });
        await fc.assert(
          fc.asyncProperty(requests(route, hints), (r) => send(route, r)),
          { seed: SEED + i, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
        );
      }
      for (const [route, counts] of statuses) ctx.diagnostic(`${route}: ${[...counts].sort(([a], [b]) => a.localeCompare(b)).map(([outcome, n]) => `${outcome} ×${n}`).join(', ')}`);
    });
  });
}
