import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pageTopic, userTopic } from '../../../actors/live/live-events.js';
import { LiveIds } from '../../../actors/live/live-ids.js';
import { ApiError } from '../../../engine/errors.js';
import { subscriptionFor } from '../../../http/live/sub-channel.js';
import { parseQuery } from '../../../http/query.js';

const ids = new LiveIds('a server secret');

function query(params: Record<string, string>): ReturnType<typeof parseQuery> {
  return parseQuery(new URLSearchParams(params).toString());
}

function refusal(params: Record<string, string>): string {
  try {
    subscriptionFor(ids, query(params));
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return `${err.status} ${err.code}`;
  }
  return 'accepted';
}

describe('what a /sub connection may listen to', () => {
  const tenantIdWS = ids.tenantIdWS('t1');
  const urlIdWS = ids.urlIdWS('t1', 'https://blog.example.com/post?id=1#top');

  test('the page, and the user when a userIdWS is given', () => {
    assert.deepEqual(subscriptionFor(ids, query({ tenantIdWS, urlId: urlIdWS })).topics, [pageTopic('t1', 'https://blog.example.com/post?id=1#top')]);
    const withUser = subscriptionFor(ids, query({ tenantIdWS, urlId: urlIdWS, userIdWS: ids.userIdWS('t1', 't1:sso-7') }));
    assert.equal(withUser.userId, 't1:sso-7');
    assert.deepEqual(withUser.topics, [pageTopic('t1', 'https://blog.example.com/post?id=1#top'), userTopic('t1', 't1:sso-7')]);
    for (const none of ['', 'null', 'undefined']) assert.equal(subscriptionFor(ids, query({ tenantIdWS, urlId: urlIdWS, userIdWS: none })).userId, null);
  });

  test('ids made with another secret, for another tenant or of another kind are refused', () => {
    const stranger = new LiveIds('another secret');
    assert.equal(refusal({ tenantIdWS: stranger.tenantIdWS('t1'), urlId: urlIdWS }), '403 invalid-live-id');
    assert.equal(refusal({ tenantIdWS, urlId: stranger.urlIdWS('t1', 'x') }), '403 invalid-live-id');
    assert.equal(refusal({ tenantIdWS, urlId: ids.urlIdWS('t2', 'x') }), '403 invalid-live-id');
    assert.equal(refusal({ tenantIdWS, urlId: ids.userIdWS('t1', 'x') }), '403 invalid-live-id', 'a userIdWS is not a urlIdWS');
    assert.equal(refusal({ tenantIdWS: urlIdWS, urlId: urlIdWS }), '403 invalid-live-id');
    assert.equal(refusal({ tenantIdWS, urlId: urlIdWS, userIdWS: ids.userIdWS('t2', 'u') }), '403 invalid-live-id');
    assert.equal(refusal({ tenantIdWS, urlId: urlIdWS, userIdWS: ids.urlIdWS('t1', 'u') }), '403 invalid-live-id');
    assert.equal(refusal({ tenantIdWS: 't1', urlId: 'x' }), '403 invalid-live-id');
  });

  test('missing ids are refused as missing', () => {
    assert.equal(refusal({ urlId: urlIdWS }), '400 missing-param');
    assert.equal(refusal({ tenantIdWS }), '400 missing-param');
    assert.equal(refusal({ tenantIdWS: '', urlId: urlIdWS }), '400 missing-param');
  });
});
