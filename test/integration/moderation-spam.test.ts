import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer, UNLIMITED_PUBLIC } from '../fixtures/server.js';
import { SmtpSink } from '../fixtures/smtp-sink.js';
import { hamComment, rng, spamComment } from '../unit/moderation/spam-corpus.js';
import { good, mod } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { commentData, secureSso, widget } from './public-comments-helpers.js';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { SPENT_PROOFS } from '../../actors/moderation/spent-proofs.js';
import { clock } from '../../engine/clock.js';
import { CHALLENGE_SECONDS } from '../../http/moderation/proof-of-work.js';

type Json = Record<string, any>;

for (const storage of storages()) {
  describe(`learned spam defence on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let cookie: string;
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url, mailFrom: 'Site <robot@example.net>', ...UNLIMITED_PUBLIC });
      cookie = (await signIn(t, sink, { isCommentModeratorAdmin: true })).cookie;
    });
    after(async () => {
      await t?.destroy();
      await sink.close();
    });

    const post = async (urlId: string, text: string): Promise<string> => {
      const res = await widget(t, 'POST', `/comments/${t.tenant.tenantId}`, { urlId }, commentData(urlId, text));
      assert.equal(res.status, 200, `never dropped: ${JSON.stringify(res.body)}`);
      return res.body.comment._id as string;
    };
    const held = async (id: string): Promise<boolean> => good(await mod(t, cookie, 'GET', `/comment/${id}`)).comment.isSpam === true;

    test('moderators\' decisions train it; suspected spam lands in the queue, never dropped; the model is durable', async () => {
      const urlId = 'spam-page';
      const r = rng(7);
      // Before any decision nothing is suspected.
      const early = await post(urlId, spamComment(r));
      assert.equal(await held(early), false, 'no verdict without decisions');
      for (let i = 0; i < 8; i++) {
        const spam = await post(urlId, spamComment(r));
        good(await mod(t, cookie, 'POST', `/set-comment-spam-status/${spam}`, { spam: true }));
        const ham = await post(urlId, hamComment(r));
        good(await mod(t, cookie, 'POST', `/set-comment-approval-status/${ham}`, { approved: true }));
      }
      const suspect = await post(urlId, spamComment(r));
      assert.equal(await held(suspect), true, 'suspected spam is held as spam');
      const queue = good(await mod(t, cookie, 'GET', '/api/comments', { filters: JSON.stringify({ urlId, isSpam: true }) })).comments.map((c: Json) => c._id);
      assert.ok(queue.includes(suspect), 'and is in the moderation queue');
      const readers = await widget(t, 'GET', `/comments/${t.tenant.tenantId}`, { urlId });
      assert.ok(!readers.body.comments.some((c: Json) => c._id === suspect), 'readers do not see it');
      const fine = await post(urlId, hamComment(r));
      assert.equal(await held(fine), false, 'an ordinary comment is not held');
      // A moderator's "not spam" releases it and teaches the model.
      good(await mod(t, cookie, 'POST', `/set-comment-spam-status/${suspect}`, { spam: false }));
      assert.equal(await held(suspect), false);

      t = await t.restart();
      const afterRestart = await post(urlId, spamComment(r));
      assert.equal(await held(afterRestart), true, 'the model survives a restart');
    });

    test('proof of work for anonymous posting, switched on per tenant', async () => {
      const tenantId = t.tenant.tenantId;
      const urlId = 'pow-page';
      assert.deepEqual(good(await mod(t, cookie, 'GET', '/spam-settings')).settings, { requireProofOfWork: false });
      assert.deepEqual(good(await mod(t, cookie, 'PUT', '/spam-settings', {}, { requireProofOfWork: true })).settings, { requireProofOfWork: true });
      const bare = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'No work done'));
      assert.equal(bare.status, 403);
      assert.equal(bare.body['code'], 'proof-of-work-required');

      const solved = async (): Promise<string> => {
        const got = await widget(t, 'GET', `/comments/${tenantId}/proof-of-work-challenge`);
        assert.equal(got.status, 200, JSON.stringify(got.body));
        const challenge = got.body['challenge'];
        const solution = await solveChallenge({ challenge, deriveKey });
        assert.ok(solution);
        return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
      };
      const altcha = await solved();
      const worked = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, altcha }, commentData(urlId, 'Work done'));
      assert.equal(worked.status, 200, JSON.stringify(worked.body));
      const replay = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, altcha }, commentData(urlId, 'Same work again'));
      assert.equal(replay.status, 403);
      assert.equal(replay.body['code'], 'proof-of-work-used', 'a solution is taken once');
      const spentStored = async (): Promise<number> => (await t.server.services.store.find(SPENT_PROOFS, { tenantId })).length;
      assert.equal(await spentStored(), 1, 'the spent challenge is stored');
      t = await t.restart();
      assert.equal((await widget(t, 'POST', `/comments/${tenantId}`, { urlId, altcha }, commentData(urlId, 'After a restart'))).body['code'], 'proof-of-work-used', 'still refused after a restart');
      // Once the challenge has expired its record goes, as the next one is spent: the record stays bounded.
      const restore = clock.set(() => Date.now() + (CHALLENGE_SECONDS + 60) * 1000);
      try {
        const later = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, altcha: await solved() }, commentData(urlId, 'Later work'));
        assert.equal(later.status, 200, JSON.stringify(later.body));
        assert.equal(await spentStored(), 1, 'the expired record was removed');
      } finally {
        restore();
      }
      const forged = JSON.parse(Buffer.from(await solved(), 'base64').toString('utf8'));
      forged.challenge.parameters.keyPrefix = '0';
      const tampered = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, altcha: Buffer.from(JSON.stringify(forged)).toString('base64') }, commentData(urlId, 'Forged'));
      assert.equal(tampered.body['code'], 'proof-of-work-invalid');
      const other = await t.addTenant({ name: 'Other pow' });
      const elsewhere = await widget(t, 'GET', `/comments/${other.tenantId}/proof-of-work-challenge`);
      const foreign = Buffer.from(JSON.stringify({ challenge: elsewhere.body['challenge'], solution: await solveChallenge({ challenge: elsewhere.body['challenge'], deriveKey }) })).toString('base64');
      assert.equal((await widget(t, 'POST', `/comments/${tenantId}`, { urlId, altcha: foreign }, commentData(urlId, 'Foreign'))).body['code'], 'proof-of-work-invalid');
      const sso = secureSso(t.tenant.apiSecret, { id: 'pow-reader', email: 'pow@example.com', username: 'powreader' });
      assert.equal((await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sso }, commentData(urlId, 'Signed in'))).status, 200, 'signed-in readers are not asked');
      good(await mod(t, cookie, 'PUT', '/spam-settings', {}, { requireProofOfWork: false }));
      assert.equal((await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Off again'))).status, 200);
    });
  });
}
