/**
 * A widget reader's own poll vote (`/poll-votes/v1/:tenantId/mine`) and the cookie-less
 * session of page reactions, over real sockets on both storages: counts withheld from readers
 * who have not voted on a poll that requires it, only one's own vote reached, the page's rules
 * (anonymous votes off), honest refusals that change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer, UNLIMITED_PUBLIC } from '../fixtures/server.js';
import { pollInput, seed } from './poll-fixture.js';
import { secureSso, widget } from './public-comments-helpers.js';

type Json = Record<string, any>;

for (const storage of storages()) {
  describe(`a widget reader's poll vote and page reactions on ${storage}`, () => {
    let t: TestServer;
    let mine: string;
    before(async () => {
      t = await startTestServer(storage, UNLIMITED_PUBLIC);
      mine = `/poll-votes/v1/${t.tenant.tenantId}/mine`;
    });
    after(async () => {
      await t.destroy();
    });

    const counts = (poll: Json) => poll['options'].map((o: Json) => o['votes']);

    test('vote, read, move and take back one own vote; results withheld until one has voted', async () => {
      const { commentId, poll } = await seed(t, { urlId: '/mine-1', poll: pollInput(3, { requireVoteToSeeResults: true }) });
      const [a, b] = poll!.options.map((o) => o.id);
      const stranger = await widget(t, 'GET', mine, { commentId });
      assert.equal(stranger.status, 200, JSON.stringify(stranger.body));
      assert.deepEqual([stranger.body['poll']['resultsHidden'], stranger.body['poll']['totalVotes'], counts(stranger.body['poll']), stranger.body['myOptionId']], [true, undefined, [undefined, undefined, undefined], null]);

      const cast = await widget(t, 'POST', mine, { commentId, optionId: a });
      assert.equal(cast.status, 200, JSON.stringify(cast.body));
      const sessionId = cast.body['user']['sessionId'] as string;
      assert.match(sessionId, /^[A-Za-z0-9_-]{22}$/);
      assert.deepEqual([cast.body['myOptionId'], cast.body['poll']['resultsHidden'], counts(cast.body['poll'])], [a, false, [1, 0, 0]]);

      const again = await widget(t, 'GET', mine, { commentId, sessionId });
      assert.deepEqual([again.body['myOptionId'], counts(again.body['poll'])], [a, [1, 0, 0]]);
      assert.equal((await widget(t, 'GET', mine, { commentId })).body['poll']['resultsHidden'], true, 'still withheld from a reader who has not voted');

      const moved = await widget(t, 'POST', mine, { commentId, optionId: b, sessionId });
      assert.deepEqual([moved.body['myOptionId'], counts(moved.body['poll']), moved.body['user']['sessionId']], [b, [0, 1, 0], sessionId]);
      const sso = secureSso(t.tenant.apiSecret, { id: 'poll-reader', email: 'poll@example.com', username: 'pollreader' });
      assert.deepEqual(counts((await widget(t, 'POST', mine, { commentId, optionId: b, sso })).body['poll']), [0, 2, 0]);

      const taken = await widget(t, 'DELETE', mine, { commentId, sessionId });
      assert.equal(taken.status, 200, JSON.stringify(taken.body));
      assert.deepEqual([taken.body['myOptionId'], taken.body['poll']['resultsHidden']], [null, true]);
      const refused = await widget(t, 'DELETE', mine, { commentId, sessionId });
      assert.deepEqual([refused.status, refused.body['code']], [404, 'not-found']);
      const api = await t.api<{ poll: Json }>('GET', `/api/v1/polls/${commentId}`);
      assert.deepEqual(counts(api.body.poll), [0, 1, 0], 'only the session vote was taken back');

      // The server-rendered fallback shows the poll read-only, and withholds what the API withholds.
      const open = await seed(t, { urlId: '/mine-1', poll: { question: 'Open results?', options: [{ label: 'Yes' }, { label: 'No' }] } });
      await t.api('POST', '/api/v1/poll-votes', { body: { commentId: open.commentId, optionId: open.poll!.options[0]!.id, anonUserId: 'someone' } });
      const html = await (await fetch(`${t.url}/ssr/comments?tenantId=${t.tenant.tenantId}&urlId=${encodeURIComponent('/mine-1')}`)).text();
      assert.match(html, /Open results\?[\s\S]*1 votes, 100%/);
      assert.match(html, /Which one\?[\s\S]*Results are shown once you have voted\./);
      assert.doesNotMatch(html, /type="submit"[^>]*>Vote</);
    });

    test('refusals: unknown option, unknown comment, closed poll, anonymous votes off, bad session', async () => {
      const { commentId } = await seed(t, { urlId: '/mine-2', poll: pollInput(2) });
      const bad = await widget(t, 'POST', mine, { commentId, optionId: 'nope' });
      assert.deepEqual([bad.status, bad.body['code']], [400, 'poll-invalid-option']);
      const missing = await widget(t, 'POST', mine, { commentId: 'ffffffffffffffffffffffff', optionId: 'x' });
      assert.deepEqual([missing.status, missing.body['code']], [404, 'not-found']);
      const noComment = await widget(t, 'GET', mine, {});
      assert.deepEqual([noComment.status, noComment.body['code']], [400, 'missing-comment-id']);
      const forged = await widget(t, 'GET', mine, { commentId, sessionId: 'not a session' });
      assert.deepEqual([forged.status, forged.body['code']], [400, 'invalid-param']);

      const closed = await seed(t, { urlId: '/mine-3', poll: pollInput(2, { requireVoteToSeeResults: true }) });
      await t.api('POST', '/api/v1/poll-votes', { body: { commentId: closed.commentId, optionId: closed.poll!.options[0]!.id, anonUserId: 'someone' } });
      assert.equal((await t.api('PATCH', `/api/v1/polls/${closed.commentId}`, { body: { closesAt: new Date(Date.now() - 1000).toISOString() } })).status, 200);
      const shut = await widget(t, 'POST', mine, { commentId: closed.commentId, optionId: closed.poll!.options[1]!.id });
      assert.deepEqual([shut.status, shut.body['code']], [409, 'poll-closed']);
      const results = await widget(t, 'GET', mine, { commentId: closed.commentId });
      assert.deepEqual([results.body['isClosed'], counts(results.body['poll'])], [true, [1, 0]], 'a closed poll shows its results to everyone');

      assert.equal((await t.api('PATCH', '/api/v1/widget-config', { query: { urlId: '/mine-2' }, body: { allowAnonVotes: false } })).status, 200);
      const anon = await widget(t, 'POST', mine, { commentId, optionId: (await t.api<{ poll: Json }>('GET', `/api/v1/polls/${commentId}`)).body.poll['options'][0]['id'] });
      assert.deepEqual([anon.status, anon.body['code']], [403, 'poll-login-required']);
      assert.equal((await t.api<{ poll: Json }>('GET', `/api/v1/polls/${commentId}`)).body.poll['totalVotes'], 0);
    });

    test('page reactions take the cookie-less sessionId, and answer a session they made', async () => {
      const reacts = `/page-reacts/v2/${t.tenant.tenantId}`;
      const made = await widget(t, 'POST', reacts, { urlId: '/reacts-session', id: 'heart' });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const sessionId = made.body['sessionId'] as string;
      assert.match(sessionId, /^[A-Za-z0-9_-]{22}$/);
      const read = await widget(t, 'GET', reacts, { urlId: '/reacts-session', sessionId });
      assert.deepEqual([read.body['reactedIds'], read.body['counts']], [['heart'], { heart: 1 }]);
      assert.deepEqual((await widget(t, 'POST', reacts, { urlId: '/reacts-session', id: 'heart', sessionId })).body, { status: 'success', code: 'already-reacted' });
      assert.deepEqual((await widget(t, 'DELETE', reacts, { urlId: '/reacts-session', id: 'heart', sessionId })).body, { status: 'success' });
      assert.deepEqual((await widget(t, 'GET', reacts, { urlId: '/reacts-session', sessionId })).body['counts'], {}, 'a reaction nobody gives any more is not counted');
      const forged = await widget(t, 'POST', reacts, { urlId: '/reacts-session', id: 'heart', sessionId: 'x' });
      assert.deepEqual([forged.status, forged.body['code']], [400, 'invalid-param']);
    });
  });
}
