/**
 * The moderators' live feed in cluster mode: a moderation page connected to one node hears the
 * comments posted and the moderation actions made through another (`moderation-queued` and
 * `moderation-updated` ride the tenant's topic, which every node relays).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { eventually } from '../fixtures/eventually.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import type { TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { linkIn } from '../integration/identity-helpers.js';
import { MOD } from '../integration/moderation-helpers.js';
import { commentData, secureSso, widget } from '../integration/public-comments-helpers.js';

const enabled = clusterTestsEnabled();
type Json = Record<string, any>;

/** The widget helpers need only a base address. */
const at = (port: number): TestServer => ({ url: `http://127.0.0.1:${port}` }) as TestServer;

describe('cluster mode: the moderators\' live feed hears every node', { skip: !enabled }, () => {
  let c: TestCluster;
  let sink: SmtpSink;
  let A: TestServer;
  let B: TestServer;
  let tenantId: string;
  before(async () => {
    sink = await SmtpSink.start();
    c = await startTestCluster({ nodes: 2, ownPorts: true, env: { SMTP_URL: sink.url, MAIL_FROM: 'Site <robot@example.net>', PUBLIC_COMMENT_BURST: '1000', PUBLIC_WRITE_BURST: '1000' } });
    A = at(c.nodes[0]!.port);
    B = at(c.nodes[1]!.port);
    tenantId = c.tenant.tenantId;
  });
  after(async () => {
    await c?.destroy();
    await sink?.close();
  });

  /** The management API through one node. */
  const api = async (node: TestServer, method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${node.url}${path}${path.includes('?') ? '&' : '?'}tenantId=${tenantId}`, { method, headers: c.headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const answer = (await res.json()) as Json;
    assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(answer)}`);
    return answer;
  };

  test('a feed opened on node B hears a comment posted through node A, and a moderator\'s approval made through node A', async () => {
    // A moderator signed in by a login link opened on node B: the session is the cluster's, not a node's.
    const email = 'feed-mod@example.com';
    const user = (await api(A, 'POST', '/api/v1/tenant-users', { username: 'feed-mod', email, isCommentModeratorAdmin: true }))['tenantUser'] as Json;
    await api(A, 'POST', `/api/v1/tenant-users/${String(user['id'])}/send-login-link`);
    const mail = await sink.waitFor((r: Received) => r.rcptTo.includes(email), 'the login link');
    const link = new URL(linkIn(mail, '/auth/login-link/'));
    const opened = await fetch(`${B.url}${link.pathname}${link.search}`);
    assert.equal(opened.status, 200, await opened.clone().text());
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;

    const feed = new WebSocket(`${B.url.replace('http', 'ws')}${MOD}/live`, { headers: { origin: B.url, cookie } });
    const frames: Json[] = [];
    feed.on('message', (data) => frames.push(JSON.parse(String(data)) as Json));
    await new Promise((resolve, reject) => {
      feed.once('open', resolve);
      feed.once('error', reject);
    });
    try {
      // The tenant holds new comments for approval, so the queue has something to decide.
      await api(A, 'PATCH', `/api/v1/tenants/${tenantId}`, { commentsRequireApproval: true });
      const urlId = '/feed-across-nodes';
      const posted = await widget(A, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Posted through node A', { commenterName: 'Ann' }));
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const commentId = String(posted.body.comment._id);
      await eventually(async () => frames.some((f) => f['type'] === 'moderation-queued' && f['commentId'] === commentId), 20_000);

      const sso = secureSso(c.tenant.apiSecret, { id: 'site-mod', email: 'mod@example.com', username: 'sitemod', isAdmin: true });
      const approved = await fetch(`${A.url}${MOD}/set-comment-approval-status/${commentId}?tenantId=${tenantId}&approved=true&sso=${encodeURIComponent(sso)}`, { method: 'POST' });
      assert.equal(approved.status, 200, await approved.clone().text());
      await eventually(async () => frames.some((f) => f['type'] === 'moderation-updated' && f['commentId'] === commentId && (f['changed'] as string[]).includes('approved')), 20_000);
      // Frames name the comment only: nothing of its text or author reaches the feed.
      for (const f of frames) assert.ok(!JSON.stringify(f).includes('Posted through node A') && !JSON.stringify(f).includes('Ann'), JSON.stringify(f));
    } finally {
      feed.close();
    }
  });
});
