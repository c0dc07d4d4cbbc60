/**
 * The widget API in cluster mode: readers spread over the nodes by the shared port read a page,
 * one posts and another votes through whichever node the kernel picks; every reader gets each
 * event once, with its writer's broadcastId, and every node's reads agree. Nothing depends on
 * timing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { LiveClient } from '../unit/live/fixtures.js';

const enabled = clusterTestsEnabled();
const SITE = 'http://localhost:3000';

async function widget(c: TestCluster, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const init: RequestInit = { method, headers: { origin: SITE, ...(body === undefined ? {} : { 'content-type': 'application/json' }) } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${c.url}${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function next(client: LiveClient, type: string): Promise<Record<string, any>> {
  for (;;) {
    const event = (await client.next()) as Record<string, any>;
    if (event['type'] === type) return event;
  }
}

describe('cluster mode: the widget API', { skip: !enabled }, () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ nodes: 2, env: { PUBLIC_COMMENT_BURST: '1000', PUBLIC_WRITE_BURST: '1000', PUBLIC_READ_BURST: '100000' } });
  });
  after(async () => {
    await c?.destroy();
  });

  test('a post and a vote reach every reader on every node once, with their broadcastIds', async () => {
    const tenantId = c.tenant.tenantId;
    const urlId = '/cluster/widget';
    const page = `/comments/${tenantId}?urlId=${encodeURIComponent(urlId)}`;
    const first = await widget(c, 'GET', page);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const sub = `ws://127.0.0.1:${c.port}/sub?urlId=${encodeURIComponent(first.body['urlIdWS'])}&tenantIdWS=${encodeURIComponent(first.body['tenantIdWS'])}&userIdWS=${encodeURIComponent(first.body['userIdWS'])}`;
    const readers = await Promise.all(Array.from({ length: 6 }, () => LiveClient.connect(sub, { origin: SITE })));

    const postId = randomUUID();
    const posted = await widget(c, 'POST', `${page}&broadcastId=${postId}`, { commenterName: 'Ann', commenterEmail: null, comment: 'Hello cluster', url: 'https://blog.example.com/cluster', urlId, parentId: null });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const commentId = posted.body['comment']['_id'] as string;
    const voteId = randomUUID();
    const voted = await widget(c, 'POST', `/comments/${tenantId}/${commentId}/vote?urlId=${encodeURIComponent(urlId)}&broadcastId=${voteId}`, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
    assert.equal(voted.status, 200, JSON.stringify(voted.body));

    const sentinel = await widget(c, 'POST', `${page}&broadcastId=${randomUUID()}`, { commenterName: 'Sam', commenterEmail: null, comment: 'Sentinel', url: 'https://blog.example.com/cluster', urlId, parentId: null });
    assert.equal(sentinel.status, 200, JSON.stringify(sentinel.body));
    for (const reader of readers) {
      const created = await next(reader, 'new-comment');
      assert.deepEqual([created['comment']['_id'], created['broadcastId']], [commentId, postId]);
      const vote = await next(reader, 'new-vote');
      assert.deepEqual([vote['vote']['commentId'], vote['broadcastId'], vote['counts']['votesUp']], [commentId, voteId, 1]);
      // The next comment event is the sentinel's: the first came once.
      assert.equal((await next(reader, 'new-comment'))['comment']['_id'], sentinel.body['comment']['_id']);
      reader.close();
    }
    // Reads through the shared port land on both nodes: every one shows the vote.
    for (let i = 0; i < 6; i++) {
      const read = await widget(c, 'GET', page);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body['comments'].find((x: { _id: string }) => x._id === commentId).votesUp, 1);
      assert.equal(read.body['comments'].length, 2);
    }
    const mine = await widget(c, 'GET', `${page}&sessionId=${voted.body['user']['sessionId']}`);
    assert.equal(mine.body['comments'].find((x: { _id: string }) => x._id === commentId)['isVotedUp'], true);
  });
});
