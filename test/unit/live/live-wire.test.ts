import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LIVE_EVENT_TYPES, type LiveEvent, pageTopic, parseTopic, userTopic } from '../../../actors/live/live-events.js';
import { encodeLiveEvent } from '../../../actors/live/live-wire.js';

describe('live event wire form', () => {
  test('is the JSON of the event when it holds no %', () => {
    const event: LiveEvent = { type: LIVE_EVENT_TYPES.newVote, timestamp: 1, vote: { _id: 'v' } };
    assert.equal(encodeLiveEvent(event), JSON.stringify(event));
  });

  test('escapes % so that decodeURIComponent and JSON.parse both give the event back', () => {
    const texts = ['%', '100%', '%20', '%E2%82%AC', '%%41', 'a "%" b', '%\\u0025'];
    for (const text of texts) {
      const event: LiveEvent = { type: LIVE_EVENT_TYPES.newComment, timestamp: 2, comment: { comment: text, [`key${text}`]: text } };
      const wire = encodeLiveEvent(event);
      assert.ok(!wire.includes('%'), text);
      assert.deepEqual(JSON.parse(wire), event, text);
      assert.deepEqual(JSON.parse(decodeURIComponent(wire)), event, text);
    }
  });
});

describe('topics', () => {
  test('page and user topics read back into their tenant and id, colons and all', () => {
    assert.deepEqual(parseTopic(pageTopic('t1', 'https://x.org/a:b?c=1#d')), { kind: 'page', tenantId: 't1', id: 'https://x.org/a:b?c=1#d' });
    assert.deepEqual(parseTopic(userTopic('t1', 't1:sso-42')), { kind: 'user', tenantId: 't1', id: 't1:sso-42' });
    assert.deepEqual(parseTopic(pageTopic('t1', '')), { kind: 'page', tenantId: 't1', id: '' });
  });

  test('other topics are not live topics', () => {
    for (const topic of ['tenant:t1', 'page:', 'page::x', 'pages:t1:x', 'user:t1', '']) assert.equal(parseTopic(topic), undefined, topic);
  });
});
