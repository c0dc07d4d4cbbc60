/**
 * Moderation in cluster mode: a ban or a closed thread made through one node holds on every
 * other. Each node listens on a port of its own here, so every call names the node it goes
 * through: the moderator acts through node A, the banned person writes through node B (and the
 * other way round for undo). Bans live in the tenant's moderation actor and a thread's state in
 * its page actor, both reached by `system.ask` wherever they live; these tests prove no node
 * answers from a copy of its own. A solved proof of work is likewise taken once in the whole
 * cluster, not once per node.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { eventually } from '../fixtures/eventually.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import type { TestServer } from '../fixtures/server.js';
import { commentData, nextOf, secureSso, SITE, widget } from '../integration/public-comments-helpers.js';
import { MOD } from '../integration/moderation-helpers.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { withQuery } from '../fixtures/server.js';
import { LiveClient } from '../unit/live/fixtures.js';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { SPENT_PROOFS } from '../../actors/moderation/spent-proofs.js';

const enabled = clusterTestsEnabled();
type Json = Record<string, any>;

/** The widget helpers need only a base address. */
const at = (port: number): TestServer => ({ url: `http://127.0.0.1:${port}` }) as TestServer;

describe('cluster mode: bans and thread state hold on every node', { skip: !enabled }, () => {
  let c: TestCluster;
  let A: TestServer;
  let B: TestServer;
  let tenantId: string;
  let moderatorSso: string;
  before(async () => {
    c = await startTestCluster({ nodes: 2, ownPorts: true, env: { PUBLIC_COMMENT_BURST: '1000', PUBLIC_WRITE_BURST: '1000', PUBLIC_READ_BURST: '100000' } });
    A = at(c.nodes[0]!.port);
    B = at(c.nodes[1]!.port);
    tenantId = c.tenant.tenantId;
    moderatorSso = secureSso(c.tenant.apiSecret, { id: 'site-mod', email: 'mod@example.com', username: 'sitemod', isAdmin: true });
  });
  after(async () => {
    await c?.destroy();
  });

  /** A moderation call through one node, as the site's server makes it for its moderator (secure SSO). */
  const mod = async (node: TestServer, method: string, path: string, query: Json = {}, body?: unknown): Promise<Json> => {
    const init: RequestInit = { method, headers: body === undefined ? {} : { 'content-type': 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await checkedFetch(withQuery(`${node.url}${MOD}${path}`, { tenantId, sso: moderatorSso, ...query }), init);
    const answer = (await res.json()) as Json;
    assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(answer)}`);
    return answer;
  };
  /** The management API through one node. */
  const api = async (node: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await checkedFetch(`${node.url}${path}`, { method, headers: c.headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const refused = (res: { status: number; body: Json }, what: string): Json => {
    assert.equal(res.status, 403, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body['code'], 'banned', what);
    return res.body;
  };
  const ssoOf = (id: string, email: string): string => secureSso(c.tenant.apiSecret, { id, email, username: id });
  const post = (node: TestServer, urlId: string, text: string, query: Json = {}) => widget(node, 'POST', `/comments/${tenantId}`, { urlId, ...query }, commentData(urlId, text));

  test('a ban by user id made through node A refuses posting, voting, flagging and reacting through node B; undo through B frees them on A', async () => {
    const urlId = '/cluster/ban-user';
    const sso = ssoOf('ban-user', 'ban-user@example.com');
    const theirs = await post(A, urlId, 'Rude words', { sso });
    assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
    const other = await post(A, urlId, 'A kind reader');
    assert.equal(other.status, 200);
    const otherId = other.body.comment._id as string;

    const banned = await mod(A, 'POST', `/ban-user/from-comment/${theirs.body.comment._id}`, { banReason: 'rude' });
    assert.equal(typeof banned['changelog']['createdBannedUserId'], 'string');

    refused(await post(B, urlId, 'Again', { sso }), 'posting through B');
    refused(await widget(B, 'POST', `/comments/${tenantId}/${otherId}/vote`, { urlId, sso }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null }), 'voting through B');
    refused(await widget(B, 'POST', `/flag-comment/${otherId}`, { tenantId, sso, isFlagged: true }), 'flagging through B');
    refused(await widget(B, 'POST', `/page-reacts/v1/likes/${tenantId}`, { urlId, sso }), 'reacting through B');
    refused(await api(B, 'POST', '/api/v1/comments', { commenterName: 'ban-user', comment: 'By the API', url: `https://blog.example.com${urlId}`, urlId, locale: 'en_us', userId: `${tenantId}:ban-user` }), 'the management API through B');
    assert.equal((await post(B, urlId, 'Someone else')).status, 200, 'others still post through B');

    await mod(B, 'POST', '/ban-user/undo', {}, { changelog: banned['changelog'] });
    const again = await post(A, urlId, 'Sorry', { sso });
    assert.equal(again.status, 200, `undone through B, free through A: ${JSON.stringify(again.body)}`);
    const voted = await widget(B, 'POST', `/comments/${tenantId}/${otherId}/vote`, { urlId, sso }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
    assert.equal(voted.status, 200, JSON.stringify(voted.body));
  });

  test('a ban by email made through node A refuses that email through node B, on the widget and the management API', async () => {
    const urlId = '/cluster/ban-email';
    const first = await api(A, 'POST', '/api/v1/comments', { commenterName: 'Seller', commenterEmail: 'seller@spam.example', comment: 'Buy now', url: `https://blog.example.com${urlId}`, urlId, locale: 'en_us' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    await mod(A, 'POST', `/ban-user/from-comment/${first.body['comment']['_id']}`, { banEmail: true });
    refused(await api(B, 'POST', '/api/v1/comments', { commenterName: 'Seller', commenterEmail: 'SELLER@spam.example', comment: 'Buy again', url: `https://blog.example.com${urlId}`, urlId, locale: 'en_us' }), 'the management API through B');
    refused(await post(B, urlId, 'Through the widget', { sso: ssoOf('seller', 'seller@spam.example') }), 'a widget user with that email through B');
    const otherMail = await api(B, 'POST', '/api/v1/comments', { commenterName: 'Fine', commenterEmail: 'fine@spam.example', comment: 'Hello', url: `https://blog.example.com${urlId}`, urlId, locale: 'en_us' });
    assert.equal(otherMail.status, 200, 'another email still posts');
  });

  test('a shadow ban made through node A: the person posts through node B, sees it through B, nobody else sees it on either node', async () => {
    const urlId = '/cluster/ban-shadow';
    const first = await post(A, urlId, 'Troll');
    assert.equal(first.status, 200);
    const sessionId = first.body.user.sessionId as string;
    await mod(A, 'POST', `/ban-user/from-comment/${first.body.comment._id}`, { isShadowBan: true });
    const posted = await post(B, urlId, 'Still trolling', { sessionId });
    assert.equal(posted.status, 200, `the answer does not give the ban away: ${JSON.stringify(posted.body)}`);
    const id = posted.body.comment._id as string;
    const byAuthor = await widget(B, 'GET', `/comments/${tenantId}`, { urlId, sessionId });
    assert.ok(byAuthor.body.comments.some((x: Json) => x._id === id), 'the author sees it through B');
    for (const node of [A, B]) {
      const byOthers = await widget(node, 'GET', `/comments/${tenantId}`, { urlId });
      assert.ok(!byOthers.body.comments.some((x: Json) => x._id === id), `nobody else sees it (${node.url})`);
    }
    const held = (await mod(B, 'GET', `/comment/${id}`))['comment'];
    assert.equal(held.isBannedUser, true);
    assert.equal(held.approved, false);
    const vote = await widget(B, 'POST', `/comments/${tenantId}/${first.body.comment._id}/vote`, { urlId, sessionId }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
    refused(vote, 'a shadow-banned person cannot vote through B');
  });

  test('a ban until a moment made through node A stops applying on every node once it passes', async () => {
    const urlId = '/cluster/ban-until';
    const sso = ssoOf('until-user', 'until@example.com');
    const theirs = await post(A, urlId, 'Mine', { sso });
    assert.equal(theirs.status, 200);
    // Long enough for the refusals below on a loaded machine; the test then waits for the end.
    const until = new Date(Date.now() + 20_000).toISOString();
    const before = (await mod(B, 'GET', '/banned-users/counts'))['totalCount'] as number;
    await mod(A, 'POST', `/ban-user/from-comment/${theirs.body.comment._id}`, { bannedUntil: until });
    for (const node of [B, A]) assert.equal(refused(await post(node, urlId, 'Too soon', { sso }), `posting through ${node.url}`)['bannedUntil'], until);
    for (const node of [B, A]) {
      await eventually(async () => {
        const res = await post(node, urlId, 'Later', { sso });
        if (res.status === 200) return true;
        assert.equal(res.body['code'], 'banned', JSON.stringify(res.body));
        assert.ok(Date.now() < Date.parse(until) + 15_000, `still banned through ${node.url} long after ${until}`);
        return false;
      }, 60_000);
    }
    assert.equal((await mod(B, 'GET', '/banned-users/counts'))['totalCount'], before, 'the expired ban no longer counts as in force');
  });

  test('a thread closed through node A refuses comments through node B and a reader on B hears it; reopening likewise', async () => {
    const urlId = '/cluster/closed-thread';
    assert.equal((await post(A, urlId, 'Before closing')).status, 200);
    const read = await widget(B, 'GET', `/comments/${tenantId}`, { urlId });
    const reader = await LiveClient.connect(`ws://127.0.0.1:${c.nodes[1]!.port}/sub?urlId=${encodeURIComponent(read.body['urlIdWS'])}&tenantIdWS=${encodeURIComponent(read.body['tenantIdWS'])}`, { origin: SITE });
    try {
      await mod(A, 'PUT', '/close-thread', { urlId });
      const closed = await nextOf(reader, 'thread-state-change');
      assert.equal(closed['isClosed'], true);
      const refusal = await post(B, urlId, 'After closing');
      assert.equal(refusal.status, 403, JSON.stringify(refusal.body));
      assert.equal(refusal.body['code'], 'page-readonly');
      assert.equal((await api(B, 'POST', '/api/v1/comments', { commenterName: 'Ann', comment: 'By the API', url: `https://blog.example.com${urlId}`, urlId, locale: 'en_us' })).body['code'], 'page-readonly');

      await mod(A, 'PUT', '/reopen-thread', { urlId });
      const reopened = await nextOf(reader, 'thread-state-change');
      assert.equal(reopened['isClosed'], false);
      const after = await post(B, urlId, 'After reopening');
      assert.equal(after.status, 200, JSON.stringify(after.body));
    } finally {
      reader.close();
    }
  });

  test('a solved proof of work is taken once in the whole cluster: posted through node A, then refused through node B', async () => {
    const urlId = '/cluster/proof-of-work';
    await mod(A, 'PUT', '/spam-settings', {}, { requireProofOfWork: true });
    try {
      const solved = async (node: TestServer): Promise<string> => {
        const got = await widget(node, 'GET', `/comments/${tenantId}/proof-of-work-challenge`);
        assert.equal(got.status, 200, JSON.stringify(got.body));
        const challenge = got.body['challenge'];
        const solution = await solveChallenge({ challenge, deriveKey });
        assert.ok(solution);
        return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
      };
      const bare = await post(B, urlId, 'No work');
      assert.equal(bare.body['code'], 'proof-of-work-required', 'the setting made through A holds on B');
      const altcha = await solved(A);
      const first = await post(A, urlId, 'Work done', { altcha });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      for (const node of [B, A]) {
        const replay = await post(node, urlId, 'Same work again', { altcha });
        assert.equal(replay.status, 403, JSON.stringify(replay.body));
        assert.equal(replay.body['code'], 'proof-of-work-used', `refused through ${node.url}`);
      }
      const fresh = await post(B, urlId, 'New work', { altcha: await solved(B) });
      assert.equal(fresh.status, 200, `a fresh solution is taken: ${JSON.stringify(fresh.body)}`);
      const store = await c.store();
      assert.equal((await store.find(SPENT_PROOFS, { tenantId })).length, 2, 'each spent challenge is stored once');
    } finally {
      await mod(A, 'PUT', '/spam-settings', {}, { requireProofOfWork: false });
    }
  });
});
