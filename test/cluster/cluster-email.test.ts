/**
 * Email in cluster mode: outboxes and templates are actors like any other, reached by routed
 * asks; the sender runs on whichever node owns a tenant's outbox. Nothing here depends on
 * timing, only on what arrives.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { SmtpSink } from '../fixtures/smtp-sink.js';
import { checkedFetch } from '../fixtures/openapi.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: email', { skip: !enabled }, () => {
  let sink: SmtpSink;
  let c: TestCluster;
  before(async () => {
    sink = await SmtpSink.start();
    c = await startTestCluster({ nodes: 2, env: { SMTP_URL: sink.url, EMAIL_RETRY_MS: '50', LOG_LEVEL: 'info' } });
  });
  after(async () => {
    await c?.destroy();
    await sink?.close();
  });

  test('welcome emails through any node arrive once each, from the tenant template; the link verifies through any node', async () => {
    const template = await checkedFetch(`${c.url}/api/v1/email-templates`, {
      method: 'POST',
      headers: c.headers,
      body: JSON.stringify({ emailTemplateId: 'commenter-verify-post', displayName: 'Cluster', ejs: 'Cluster hello <%= comment.commenterName %> <a href="<%= verifyPostUrl %>">verify</a>' }),
    });
    assert.equal(template.status, 200, await template.text());
    const names = Array.from({ length: 8 }, (_, i) => `member${i}`);
    for (const name of names) {
      const res = await checkedFetch(`${c.url}/api/v1/comments?sendEmails=true`, {
        method: 'POST',
        headers: c.headers,
        body: JSON.stringify({ commenterName: name, commenterEmail: `${name}@example.org`, comment: `Hi from ${name}`, url: 'https://example.com/c', urlId: `c-${name}`, locale: 'en_us' }),
      });
      assert.equal(res.status, 200, await res.text());
    }
    for (const name of names) await sink.waitFor((r) => r.rcptTo.includes(`${name}@example.org`), `${name}'s email`);
    const mine = sink.attempts.filter((a) => a.rcptTo.some((r) => r.endsWith('@example.org')));
    assert.equal(mine.length, names.length, 'one email per commenter');
    assert.equal(new Set(mine.map((a) => a.messageId)).size, names.length);
    assert.ok(mine.every((a) => /^Cluster hello member\d/.test(String(a.mail.html))));

    const href = /href="([^"]+)"/.exec(String(mine[0]!.mail.html))![1]!.replaceAll('&amp;', '&');
    const path = href.slice(href.indexOf('/email/'));
    const opened = await checkedFetch(c.url + path);
    assert.equal(opened.status, 200);
    assert.deepEqual(await opened.json(), { status: 'success', verifiedCount: 1 });
  });
});
