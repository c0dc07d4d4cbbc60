import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { demoHeaders, spawnServer } from '../fixtures/server-process.js';
import { storages } from '../fixtures/server.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { SmtpSink } from '../fixtures/smtp-sink.js';
import { checkedFetch } from '../fixtures/openapi.js';

/**
 * An email acknowledged (its comment answered) but not confirmed by the receiving server when
 * the process is killed is sent after the restart, with the same Message-ID.
 */
for (const storage of storages()) {
  describe(`email outbox across a crash on ${storage}`, () => {
    let sink: SmtpSink;
    before(async () => {
      sink = await SmtpSink.start();
    });
    after(() => sink.close());

    test('SIGKILL after the API answered and before delivery: the email arrives after restart', () =>
      withServerStorage(storage, 'email-crash', async (storageEnv) => {
        const env = { ...storageEnv, SMTP_URL: sink.url, EMAIL_RETRY_MS: '50' };
        const first = await spawnServer(env);
        const headers = demoHeaders(first);
        // The sink reads the message and never answers: the sender cannot learn it arrived.
        sink.hold();
        const res = await checkedFetch(`${first.url}/api/v1/comments?sendEmails=true`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ commenterName: 'Kim', commenterEmail: 'kim@example.org', comment: 'Before the crash', url: 'https://example.com/a', urlId: 'a', locale: 'en_us' }),
        });
        assert.equal(res.status, 200, await res.text());
        const attempted = await sink.waitFor((r) => r.rcptTo.includes('kim@example.org'), 'the first attempt');
        await first.kill('SIGKILL');
        sink.release();

        const second = await spawnServer(env);
        try {
          const delivered = await sink.waitFor((r) => r.rcptTo.includes('kim@example.org') && r !== attempted, 'the email after restart');
          assert.equal(delivered.code, 250);
          assert.equal(delivered.messageId, attempted.messageId, 'same Message-ID: receivers can drop the duplicate');
          assert.equal(delivered.mail.subject, 'Please confirm your comment on example.com');
        } finally {
          await second.kill('SIGTERM');
        }
      }));
  });
}
