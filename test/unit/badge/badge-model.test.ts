import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awardOf, BADGE_TYPES, commentBadgeInfo, earns, refreshed, type ProgressDoc, type TenantBadgeDoc } from '../../../actors/badge/badge-model.js';
import { dupKeyOf, publicFeedPost, type FeedPostDoc } from '../../../actors/feed/feed-model.js';

const badge = (fields: Partial<TenantBadgeDoc>): TenantBadgeDoc => ({
  _id: 'b',
  tenantId: 't',
  createdByUserId: null,
  createdAt: '2024-01-01T00:00:00.000Z',
  enabled: true,
  urlId: null,
  type: 0,
  threshold: 2,
  uses: 0,
  name: '',
  description: '',
  displayLabel: '',
  displaySrc: null,
  backgroundColor: null,
  borderColor: null,
  textColor: null,
  cssClass: null,
  veteranUserThresholdMillis: 0,
  isAwaitingReprocess: false,
  isAwaitingDeletion: false,
  replacesBadgeId: null,
  ...fields,
});
const progress = (counts: Record<string, number>, first = '2024-01-01T00:00:00.000Z'): ProgressDoc => ({ _id: 'p', tenantId: 't', userId: 'u', firstCommentId: 'c', firstCommentDate: first, progress: counts });
const DAY = 86_400_000;

test('counted badges are earned once their type reaches the threshold; a threshold of 0 needs one', () => {
  for (const type of [BADGE_TYPES.commentCount, BADGE_TYPES.commentUpVotes, BADGE_TYPES.commentReplies]) {
    assert.equal(earns(badge({ type }), progress({ [type]: 1 }), 0), false);
    assert.equal(earns(badge({ type }), progress({ [type]: 2 }), 0), true);
    assert.equal(earns(badge({ type }), progress({ [(type + 1) % 3]: 5 }), 0), false, 'another type does not count');
  }
  assert.equal(earns(badge({ threshold: 0 }), progress({}), 0), false);
  assert.equal(earns(badge({ threshold: 0 }), progress({ 0: 1 }), 0), true);
});

test('disabled, deleted, manual and unknown types are never earned by progress', () => {
  const full = progress({ 0: 100, 1: 100, 2: 100 });
  assert.equal(earns(badge({ enabled: false }), full, 0), false);
  assert.equal(earns(badge({ isAwaitingDeletion: true }), full, 0), false);
  assert.equal(earns(badge({ type: BADGE_TYPES.manual }), full, 0), false);
  assert.equal(earns(badge({ type: 42 }), full, 0), false);
});

test('the veteran badge: first comment older than the threshold', () => {
  const first = Date.UTC(2024, 0, 1);
  const vet = badge({ type: BADGE_TYPES.veteran, veteranUserThresholdMillis: 7 * DAY });
  assert.equal(earns(vet, progress({}, new Date(first).toISOString()), first + 7 * DAY - 1), false);
  assert.equal(earns(vet, progress({}, new Date(first).toISOString()), first + 7 * DAY), true);
  assert.equal(earns(badge({ type: BADGE_TYPES.veteran, veteranUserThresholdMillis: 0 }), progress({}), first + 100 * DAY), false, 'no threshold, no badge');
});

test("a user's badge copies its catalog badge's rule and look; a refresh takes the new look and keeps the rest", () => {
  const look = { description: 'Wrote ten', displayLabel: 'Ten', displaySrc: 'https://x.test/10.png', backgroundColor: '#000', borderColor: '#111', textColor: '#fff', cssClass: 'ten' };
  const catalog = badge({ _id: 'b10', type: BADGE_TYPES.commentCount, threshold: 10, veteranUserThresholdMillis: 5, urlId: '/p', name: 'internal', ...look });
  const held = awardOf('ub1', catalog, 'u', '2024-02-02T00:00:00.000Z', true);
  assert.deepEqual(held, {
    _id: 'ub1', tenantId: 't', userId: 'u', badgeId: 'b10', createdAt: '2024-02-02T00:00:00.000Z', receivedAt: '2024-02-02T00:00:00.000Z',
    type: BADGE_TYPES.commentCount, threshold: 10, ...look, veteranUserThresholdMillis: 5, displayedOnComments: true, order: 0, urlId: '/p',
  });
  assert.deepEqual(commentBadgeInfo(held), { id: 'b10', type: BADGE_TYPES.commentCount, ...look });

  const newLook = { description: 'Wrote ten, now', displayLabel: '10', displaySrc: null, backgroundColor: null, borderColor: null, textColor: '#eee', cssClass: null };
  const again = refreshed({ ...held, order: 3, displayedOnComments: false }, badge({ ...catalog, threshold: 99, ...newLook }));
  assert.deepEqual(again, { ...held, order: 3, displayedOnComments: false, ...newLook });
});

test('feed posts: the duplicate key covers author and content; the public projection hides author ids and meta but to the author', () => {
  const post = { title: 'T', contentHTML: '<b>x</b>', media: [], links: [] };
  assert.equal(dupKeyOf('a', post), dupKeyOf('a', { ...post }));
  assert.notEqual(dupKeyOf('a', post), dupKeyOf('b', post));
  assert.notEqual(dupKeyOf('a', post), dupKeyOf('a', { ...post, title: 'U' }));
  const doc: FeedPostDoc = { _id: 'p', tenantId: 't', fromUserId: 't:u', fromUserDisplayName: 'U', fromUserAvatar: null, tags: [], meta: { k: 'v' }, createdAt: '2024-01-01T00:00:00.000Z', reacts: {}, dupKey: 'd', ...post };
  const seen = publicFeedPost(doc);
  assert.equal('fromUserId' in seen || 'meta' in seen || 'dupKey' in seen, false);
  assert.equal(publicFeedPost(doc, 't:u')['fromUserId'], 't:u');
  assert.equal(publicFeedPost(doc, 't:other')['fromUserId'], undefined);
});
