/**
 * Every OpenAPI operation the server implements, called with valid input on data that fills
 * the optional parts of its answer (polls, hashtags, mentions, replies, votes, flags, pages
 * created by a reaction), its answer checked against the operation's 200 schema by the test
 * client. The test fails when an implemented operation got no validated call, so a new route
 * of an OpenAPI operation cannot ship without its answer being checked. Live events keep their
 * own shapes (`PubSubComment`, `PubSubVote`), checked from the event log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROUTES } from '../../http/routes/index.js';
import { eventually } from '../fixtures/eventually.js';
import { assertAnswer, assertComponent, findOperation, type Operation, validatedOperations, WireShapeError } from '../fixtures/openapi.js';
import { type ApiResponse, startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { callIdentityOperations } from './identity-shapes.js';
import { authorize, oauthFixture, type OAuthFixture, register } from './oauth-helpers.js';
import { callNotifyOperations } from './notify-shapes.js';
import { callReaderOperations } from './reader-shapes.js';
import { callWebhookOperations } from './webhook-shapes.js';
import { callQuestionOperations } from './question-shapes.js';
import { callBadgeOperations, callFeedOperations } from './feed-badge-shapes.js';
import { callPublicCommentOperations } from './public-comment-shapes.js';
import { callModerationOperations } from './moderation-shapes.js';

/** The OpenAPI operations the server's routes implement. */
function implementedOperations(): Operation[] {
  const found = new Map<string, Operation>();
  for (const route of ROUTES) {
    const operation = findOperation(route.method, route.path);
    if (operation !== undefined) found.set(operation.id, operation);
  }
  return [...found.values()];
}

function ok<T>(r: ApiResponse<T>, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

describe('the OpenAPI helper', () => {
  test('finds operations by concrete path, literal segments first', () => {
    assert.equal(findOperation('GET', '/api/v1/comments/abc?x=1')?.id, 'GetComment');
    assert.equal(findOperation('GET', '/api/v1/pages/by-url-id')?.id, 'GetPageByURLId');
    assert.equal(findOperation('PATCH', '/api/v1/pages/p1')?.id, 'PatchPage');
    assert.equal(findOperation('GET', '/api/v1/widget-config'), undefined);
  });

  test('refuses a wrong shape, naming where, what is expected and what was found; allows extra fields and nulls', () => {
    const comment = { id: 'c', approved: true, comment: 'x', commentHTML: 'x', commenterName: 'A', locale: null, tenantId: 't', url: 'u', urlId: '/u', verified: false, votes: null };
    assert.ok(assertAnswer('GET', '/api/v1/comments/c', { status: 'success', comment: { ...comment, date: 1, extra: { any: 1 } } }));
    assert.ok(assertAnswer('GET', '/api/v1/comments/c', { status: 'success', comment: { ...comment, date: null } }));
    assert.throws(
      () => assertAnswer('GET', '/api/v1/comments/c', { status: 'success', comment: { ...comment, date: '2024-01-01T00:00:00.000Z' } }),
      (err: Error) => err instanceof WireShapeError && /\/comment\/date: must be number,null/.test(err.message) && err.message.includes('"2024-01-01T00:00:00.000Z"') && err.message.includes('GetComment'),
    );
    assert.throws(() => assertAnswer('GET', '/api/v1/pages', { status: 'success', pages: [{ id: 'p', urlId: '/p', url: null, title: '', commentCount: 0, rootCommentCount: 0, createdAt: '2024-01-01T00:00:00.000Z' }] }), /\/pages\/0\/url: must be string/);
    assert.throws(() => assertAnswer('DELETE', '/api/v1/comments/c', { status: 'success' }), /must have required property 'action'/);
  });
});

/**
 * Calls every implemented OpenAPI operation through `t.api` (which validates each success
 * answer), and fails when one got no validated call.
 */
async function callEveryOperation(t: TestServer): Promise<void> {
  validatedOperations.clear();
  const tenantId = t.tenant.tenantId;
  const pub = { auth: 'none' as const, headers: { origin: 'https://blog.example' } };
  const urlId = '/shapes';

  ok(await t.api('GET', '/api/v1/tenant-daily-usage'), 'usage');
  // The widget's site, so that the public routes admit it once domains are configured.
  ok(await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'blog.example' } }), 'add the widget domain');
  ok(await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'shapes.example', emailFromName: 'Shapes', emailHeaders: { 'X-A': 'b' } } }), 'add domain');
  ok(await t.api('GET', '/api/v1/domain-configs'), 'domains');
  ok(await t.api('GET', '/api/v1/domain-configs/shapes.example'), 'domain');
  ok(await t.api('PUT', '/api/v1/domain-configs/shapes.example', { body: { domain: 'shapes.example', emailFromName: 'Put' } }), 'put domain');
  ok(await t.api('PATCH', '/api/v1/domain-configs/shapes.example', { body: { logoSrc: '/logo.png' } }), 'patch domain');

  // A page created by a reaction first: it has no url until a comment brings one.
  ok(await t.api('POST', `/page-reacts/v1/likes/${tenantId}`, { ...pub, query: { urlId: '/reacted', title: 'Reacted' } }), 'like');
  ok(await t.api('GET', '/api/v1/pages'), 'pages with a reaction-made page');
  ok(await t.api('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/reacted' } }), 'reaction-made page');

  const full = ok(
    await t.api<{ comment: { _id: string; userId: string } }>('POST', '/api/v1/comments', {
      query: { isLive: true },
      body: {
        commenterName: 'Ann',
        commenterEmail: 'ann@shapes.example',
        commenterLink: 'https://ann.example',
        avatarSrc: '/ann.png',
        comment: 'Hello #shapes @Bob [link](https://x.example) `code`',
        url: 'https://blog.example/shapes',
        urlId,
        locale: 'en_us',
        pageTitle: 'Shapes',
        date: '2024-05-01T10:00:00Z',
        localDateString: 'May 1',
        localDateHours: 12,
        mentions: [{ id: 'bob', tag: '@Bob', type: 'user' }],
        hashTags: [{ tag: '#extra', url: 'https://blog.example/tags/extra' }],
        meta: { wpPostId: '7', other: [1, 2] },
        moderationGroupIds: ['g1'],
        feedbackIds: ['f1'],
        rating: 4.5,
        isPinned: true,
        verified: true,
        domain: 'blog.example',
        poll: { question: 'Which?', options: [{ label: 'A' }, { label: 'B' }] },
      },
    }),
    'create a full comment',
  ).comment;
  const reply = ok(await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Bo', commenterEmail: 'bo@shapes.example', comment: 'reply', url: 'https://blog.example/shapes', urlId, locale: 'en', parentId: full._id } }), 'reply').comment;
  const plain = ok(await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Cy', comment: 'on the reacted page', url: 'https://blog.example/reacted', urlId: '/reacted', locale: 'en' } }), 'plain').comment;

  const vote = ok(await t.api<{ voteId: string }>('POST', '/api/v1/votes', { query: { commentId: reply._id, direction: 'up', userId: 'voter' } }), 'vote');
  ok(await t.api('POST', '/api/v1/votes', { query: { commentId: reply._id, direction: 'down', anonUserId: 'anon-voter' } }), 'anonymous vote');
  ok(await t.api('GET', '/api/v1/votes', { query: { urlId } }), 'votes');
  ok(await t.api('GET', '/api/v1/votes/for-user', { query: { urlId, userId: 'voter' } }), 'votes for a user');
  ok(await t.api('POST', `/api/v1/comments/${reply._id}/flag`, { query: { userId: 'flagger' } }), 'flag');
  ok(await t.api('POST', `/api/v1/comments/${reply._id}/block`, { query: { userId: 'blocker' }, body: { commentIdsToCheck: [reply._id, full._id, 'nope'] } }), 'block');
  ok(await t.api('POST', `/api/v1/comments/${reply._id}/un-block`, { query: { userId: 'blocker' }, body: { commentIdsToCheck: [reply._id] } }), 'un-block');

  ok(await t.api('GET', `/api/v1/comments/${full._id}`), 'one comment');
  ok(await t.api('GET', '/api/v1/comments', { query: { urlId } }), 'a page');
  ok(await t.api('GET', '/api/v1/comments', { query: { urlId, contextUserId: 'voter' } }), 'a page for a reader');
  ok(await t.api('GET', '/api/v1/comments', { query: { urlId, asTree: true, parentId: 'null' } }), 'tree mode');
  ok(await t.api('GET', '/api/v1/comments', { query: { hashTag: ['shapes'] } }), 'tenant-wide hashtag search');
  ok(await t.api('GET', '/api/v1/comments', { query: { fromDate: 0, toDate: Date.UTC(2030, 0, 1) } }), 'tenant-wide date search');
  ok(await t.api('PATCH', `/api/v1/comments/${full._id}`, { query: { isLive: true }, body: { comment: 'edited #shapes', expireAt: Date.UTC(2030, 0, 1), isLocked: false } }), 'patch');
  ok(await t.api('POST', `/api/v1/comments/${reply._id}/un-flag`, { query: { userId: 'flagger' } }), 'un-flag');
  ok(await t.api('GET', `/api/v1/users/${full.userId}`), 'user');

  ok(await t.api('GET', '/api/v1/pages'), 'pages');
  const page = ok(await t.api<{ page: { id: string; url?: string } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/reacted' } }), 'page').page;
  assert.equal(page.url, 'https://blog.example/reacted', 'the reaction-made page takes the url of its first comment');
  ok(await t.api('POST', '/api/v1/pages', { body: { urlId: '/made', url: 'https://blog.example/made', title: 'Made', accessibleByGroupIds: ['g1'] } }), 'add page');
  const made = ok(await t.api<{ page: { id: string } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/made' } }), 'made').page;
  ok(await t.api('PATCH', `/api/v1/pages/${made.id}`, { body: { title: 'Renamed', isClosed: true } }), 'patch page');
  ok(await t.api('DELETE', `/api/v1/pages/${made.id}`), 'delete page');

  ok(await t.api('POST', '/api/v1/hash-tags', { body: { tag: '#solo', url: 'https://blog.example/solo' } }), 'add tag');
  ok(await t.api('POST', '/api/v1/hash-tags/bulk', { body: { tags: [{ tag: '#bulk' }, { tag: '#solo' }] } }), 'bulk tags');
  ok(await t.api('GET', '/api/v1/hash-tags'), 'tags');
  ok(await t.api('PATCH', `/api/v1/hash-tags/${encodeURIComponent('#solo')}`, { body: { url: 'https://blog.example/solo2' } }), 'patch tag');
  ok(await t.api('DELETE', `/api/v1/hash-tags/${encodeURIComponent('#bulk')}`), 'delete tag');

  ok(await t.api('GET', `/page-reacts/v1/likes/${tenantId}`, { ...pub, query: { urlId: '/reacted' } }), 'likes');
  ok(await t.api('GET', `/page-reacts/v1/likes/${tenantId}`, { ...pub, query: { urlId: '/reacted', includeUserInfo: 'public' } }), 'likes with users');
  ok(await t.api('DELETE', `/page-reacts/v1/likes/${tenantId}`, { ...pub, query: { urlId: '/reacted' } }), 'unlike');
  ok(await t.api('POST', `/page-reacts/v2/${tenantId}`, { ...pub, query: { urlId: '/reacted', id: 'heart' } }), 'react');
  ok(await t.api('GET', `/page-reacts/v2/${tenantId}`, { ...pub, query: { urlId: '/reacted' } }), 'reactions');
  ok(await t.api('GET', `/page-reacts/v2/${tenantId}/list`, { ...pub, query: { urlId: '/reacted', id: 'heart' } }), 'reactors');
  ok(await t.api('DELETE', `/page-reacts/v2/${tenantId}`, { ...pub, query: { urlId: '/reacted', id: 'heart' } }), 'un-react');

  const log = ok(await t.api<{ events: { data: string }[] }>('GET', `/event-log/${tenantId}`, { ...pub, query: { urlId, startTime: 0 } }), 'event log');
  const events = log.events.map((e) => JSON.parse(e.data) as { type: string; comment?: Record<string, unknown>; vote?: unknown });
  const withComments = events.filter((e) => e.comment !== undefined);
  assert.ok(withComments.length >= 2, JSON.stringify(events.map((e) => e.type)));
  for (const event of withComments) assertComponent('PubSubComment', event.comment);
  for (const event of events) if (event.vote !== undefined) assertComponent('PubSubVote', event.vote);

  ok(await t.api('POST', '/api/v1/aggregate', { body: { resourceName: 'Comment', groupBy: ['urlId'], operations: [{ field: 'id', op: 'count', alias: 'n' }, { field: 'votes', op: 'max', alias: 'top' }] } }), 'aggregate');

  ok(await t.api('GET', '/api/v1/email-templates/definitions'), 'email template definitions');
  ok(await t.api('POST', '/api/v1/email-templates/render', { body: { emailTemplateId: 'commenter-verify-post', ejs: '<%= comment.commenterName %>' } }), 'render a template');
  // A template that renders on the test data but fails on a comment without a page title.
  const template = ok(
    await t.api<{ emailTemplate: { _id: string } }>('POST', '/api/v1/email-templates', {
      body: { emailTemplateId: 'commenter-verify-post', displayName: 'Fragile', domain: 'blog.example', ejs: '<%= comment.pageTitle.toUpperCase() %>' },
    }),
    'create a template',
  ).emailTemplate;
  ok(await t.api('GET', '/api/v1/email-templates'), 'templates');
  ok(await t.api('GET', `/api/v1/email-templates/${template._id}`), 'template');
  ok(await t.api('PATCH', `/api/v1/email-templates/${template._id}`, { body: { displayName: 'Fragile too' } }), 'patch template');
  ok(
    await t.api('POST', '/api/v1/comments', { query: { sendEmails: true }, body: { commenterName: 'Dee', commenterEmail: 'dee@shapes.example', comment: 'mail me', url: 'https://blog.example/mail', urlId: '/mail', locale: 'en_us' } }),
    'a comment that sends a verification email',
  );
  type RenderErrors = { renderErrors: { id: string }[] };
  let renderErrors: RenderErrors['renderErrors'] = [];
  await eventually(async () => {
    renderErrors = ok(await t.api<RenderErrors>('GET', `/api/v1/email-templates/${template._id}/render-errors`), 'render errors').renderErrors;
    return renderErrors.length > 0;
  }, 60_000);
  ok(await t.api('DELETE', `/api/v1/email-templates/${template._id}/render-errors/${renderErrors[0]!.id}`), 'delete a render error');
  ok(await t.api('DELETE', `/api/v1/email-templates/${template._id}`), 'delete template');

  ok(await t.api('DELETE', `/api/v1/votes/${vote.voteId}`), 'delete vote');
  ok(await t.api('DELETE', `/api/v1/comments/${plain._id}`, { query: { isLive: true } }), 'delete comment');
  ok(await t.api('DELETE', '/api/v1/domain-configs/shapes.example'), 'delete domain');

  await callIdentityOperations(t);
  await callWebhookOperations(t);
  await callNotifyOperations(t);
  await callQuestionOperations(t);
  await callFeedOperations(t);
  await callBadgeOperations(t);
  await callPublicCommentOperations(t);
  await callReaderOperations(t);
  await callModerationOperations(t);

  const missing = implementedOperations()
    .filter((op) => !validatedOperations.has(op.id))
    .map((op) => `${op.method} ${op.template} (${op.id})`);
  assert.deepEqual(missing, [], 'implemented OpenAPI operations with no validated answer: add a call to this test');
}

for (const storage of storages()) {
  describe(`OpenAPI wire shapes on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, { webhookAllowPrivate: true });
    });
    after(async () => {
      await t.destroy();
    });

    test('every implemented OpenAPI operation answers in its 200 shape', () => callEveryOperation(t));
  });

  describe(`OpenAPI wire shapes with an OAuth access token on ${storage}`, () => {
    let f: OAuthFixture;
    before(async () => {
      f = await oauthFixture(storage, { webhookAllowPrivate: true });
    });
    after(async () => {
      await f?.close();
    });

    test('every implemented OpenAPI operation answers in its 200 shape when called with a bearer token', async () => {
      const tokens = await authorize(f.as, await register(f.as), f.admin.cookie);
      const bearer = { authorization: `Bearer ${tokens.access_token}` };
      // The tenant's own calls use the token; calls as other tenants (explicit keys) stay as they are.
      const withToken: TestServer = {
        ...f.t,
        api: (method, path, options = {}) => ((options.auth ?? 'headers') === 'headers' ? f.t.api(method, path, { ...options, auth: 'none', headers: { ...bearer, ...options.headers } }) : f.t.api(method, path, options)),
      };
      await callEveryOperation(withToken);
    });
  });
}
