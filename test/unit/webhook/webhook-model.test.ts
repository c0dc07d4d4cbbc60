import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { CommentDoc } from '../../../actors/page/comment-doc.js';
import { webhookEvents } from '../../../actors/page/page-webhooks.js';
import type { WebhookTarget } from '../../../actors/webhook/protocol.js';
import { commentSnapshot, deliveryBody, domainMatches, pendingEventView, pendingFilter } from '../../../actors/webhook/webhook-model.js';
import { signWebhook, standardWebhooksSecret } from '../../../webhooks/signing.js';
import { assertWireShape } from '../../fixtures/openapi.js';

function comment(extra: Partial<CommentDoc> = {}): CommentDoc {
  return {
    _id: 'c1', tenantId: 't1', urlId: 'post-1', url: 'https://Blog.Example.com:8443/post-1', pageTitle: 'Post', parentId: null,
    comment: 'Hi @bob', commentHTML: '<p>Hi @bob</p>', commenterName: 'Ann', commenterEmail: 'ann@example.org', commenterLink: null,
    userId: 'u1', anonUserId: null, avatarSrc: null, date: '2026-01-02T03:04:05.678Z', localDateString: null, localDateHours: null,
    votes: 2, votesUp: 3, votesDown: 1, flagCount: 0, reviewed: false, approved: true, isSpam: false, permNotSpam: false,
    isLocked: false, isPinned: false, isByAdmin: false, isByModerator: false, isBannedUser: false, isDeleted: false, isDeletedUser: false,
    locale: 'en_us', verified: true, verifiedDate: '2026-01-02T03:05:00.000Z', displayLabel: null, hasLinks: false, hasCode: false,
    hasImages: false, badges: null, mentions: [{ id: 'u2', tag: '@bob' }], hashTags: [{ id: 'h1', tag: 'news', url: null }],
    hashTagKeys: ['news'], authorKey: 'u:u1', notificationSentForParent: false, expireAt: null, meta: { a: 1 },
    moderationGroupIds: null, feedbackIds: [], externalId: null, externalParentId: null, rating: null, domain: null, hasPoll: false,
    ...extra,
  };
}

const target = (event: WebhookTarget['event'], domain = '*', id = 'w1'): WebhookTarget => ({ id, url: 'https://r.example/hook', method: 'POST', event, domain });

describe('webhook shapes', () => {
  test("a pending event's comment and the event itself match the API description", () => {
    const snapshot = commentSnapshot(comment());
    assert.equal(snapshot['hashTagKeys'], undefined);
    assert.equal(snapshot['authorKey'], undefined);
    assert.equal(snapshot['hasPoll'], undefined);
    assert.equal(snapshot['externalId'], undefined, 'null externalId left out: FComment does not allow null');
    const [event] = webhookEvents('t1', [target('comment-created')], 'comment-created', comment());
    assertWireShape('GetPendingWebhookEvents', { status: 'success', pendingWebhookEvents: [pendingEventView(event!), pendingEventView({ ...event!, lastError: { statusCode: 500, body: 'no', headers: {} } })] });
    assert.equal(event!.domain, 'blog.example.com:8443');
    assert.equal(event!.eventType, 0);
  });

  test('a change queues one event per subscription of its kind whose domain covers the comment', () => {
    const targets = [target('comment-created', '*', 'a'), target('comment-updated', '*', 'b'), target('comment-created', 'example.com', 'c'), target('comment-created', 'other.com', 'd')];
    assert.deepEqual(webhookEvents('t1', targets, 'comment-created', comment()).map((e) => e.webhookId), ['a', 'c']);
    assert.deepEqual(webhookEvents('t1', targets, 'comment-deleted', comment()).map((e) => e.webhookId), []);
    assert.deepEqual(webhookEvents('t1', targets, 'comment-created', comment({ domain: 'other.com' })).map((e) => e.webhookId), ['a', 'd']);
    assert.ok(domainMatches('*.example.com', 'blog.example.com'));
    assert.ok(!domainMatches('*.example.com', 'example.com'));
    assert.ok(!domainMatches('example.com', null));
  });

  test("the delivery body is FastComments' WebhookComment", () => {
    const body = deliveryBody(commentSnapshot(comment({ externalId: 'x-1' })), 'blog.example.com');
    assert.deepEqual(body, {
      id: 'c1', urlId: 'post-1', commenterName: 'Ann', comment: 'Hi @bob', commentHTML: '<p>Hi @bob</p>', parentId: null,
      date: '2026-01-02T03:04:05.678Z', votes: 2, votesUp: 3, votesDown: 1, verified: true, reviewed: false, isSpam: false,
      hasImages: false, approved: true, locale: 'en_us', url: 'https://Blog.Example.com:8443/post-1', userId: 'u1',
      commenterEmail: 'ann@example.org', externalId: 'x-1', mentions: [{ id: 'u2', tag: '@bob' }], domain: 'blog.example.com',
      verifiedDate: Date.parse('2026-01-02T03:05:00.000Z'),
    });
  });

  test('list filters', () => {
    assert.deepEqual(pendingFilter('t1', { commentId: 'c', eventType: 2, type: 1, domain: 'A.com', attemptCountGT: 3, externalId: 'e' }), {
      tenantId: 't1', commentId: 'c', externalId: 'e', eventType: 2, type: 1, domain: 'a.com', attemptCount: { $gt: 3 },
    });
  });

  test('signatures: FastComments hex over timestamp.body, Standard Webhooks over id.timestamp.body with the secret as key', () => {
    const secret = 'aB3_secret-value';
    const body = '{"id":"c1","comment":"héllo"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = signWebhook(secret, 'evt1', timestamp, body);
    assert.equal(signed.fastComments, `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
    assert.equal(signed.standard, new Webhook(standardWebhooksSecret(secret)).sign('evt1', new Date(timestamp * 1000), body));
    const headers = { 'webhook-id': 'evt1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signed.standard };
    assert.deepEqual(new Webhook(standardWebhooksSecret(secret)).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(standardWebhooksSecret(secret)).verify(body.replace('é', 'e'), headers));
  });
});
