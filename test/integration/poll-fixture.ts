/**
 * Helpers shared by the poll integration tests. Comments belong to the page actor: until its
 * comment endpoint exists, a comment (and its poll, built by `createPoll` in the same batch,
 * exactly as comment creation does) is written straight to storage before any actor of it is
 * active.
 */
import { clock } from '../../engine/clock.js';
import { newId } from '../../engine/ids.js';
import { COMMENTS, type CommentDoc } from '../../actors/page/comment-doc.js';
import { createPoll, POLL_COLLECTIONS, type PollDoc, type PollInput, type PollVoteDoc } from '../../actors/poll/poll-model.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import type { Store, WriteOp } from '../../storage/store.js';
import type { TestServer } from '../fixtures/server.js';

export interface PollView {
  question: string;
  options: { id: string; label: string; votes: number }[];
  totalVotes: number;
  closesAt: string | null;
  privacy: number;
  requireVoteToSeeResults: boolean;
}

export interface PollVoteView {
  id: string;
  tenantId: string;
  commentId: string;
  urlId: string;
  voterId: string;
  optionId: string;
  userId: string | null;
  anonUserId: string | null;
  ip: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SeedOptions {
  tenantId?: string;
  urlId?: string;
  isLocked?: boolean;
  isDeleted?: boolean;
  poll?: PollInput;
}

/**
 * A comment document as the page stores it (the fields of today's `CommentDoc`; built loosely
 * because that shape is the page's and still grows).
 */
export function commentDoc(tenantId: string, urlId: string, overrides: Partial<CommentDoc> = {}): CommentDoc {
  const now = new Date(clock.now()).toISOString();
  const doc: Record<string, unknown> = {
    _id: newId(clock.now()),
    tenantId,
    urlId,
    url: `https://example.com${urlId}`,
    pageTitle: null,
    parentId: null,
    comment: 'What do you think?',
    commentHTML: '<p>What do you think?</p>',
    commenterName: 'Asker',
    commenterEmail: null,
    commenterLink: null,
    userId: null,
    anonUserId: null,
    avatarSrc: null,
    date: now,
    localDateString: null,
    localDateHours: null,
    votes: 0,
    votesUp: 0,
    votesDown: 0,
    flagCount: 0,
    reviewed: false,
    approved: true,
    isSpam: false,
    permNotSpam: false,
    isLocked: false,
    isPinned: false,
    isByAdmin: false,
    isByModerator: false,
    isBannedUser: false,
    isDeleted: false,
    isDeletedUser: false,
    locale: null,
    verified: false,
    verifiedDate: null,
    displayLabel: null,
    hasLinks: false,
    hasCode: false,
    hasImages: false,
    badges: null,
    mentions: [],
    hashTags: [],
    hashTagKeys: [],
    authorKey: null,
    notificationSentForParent: false,
    expireAt: null,
    meta: null,
    moderationGroupIds: null,
    feedbackIds: [],
    externalId: null,
    externalParentId: null,
    rating: null,
    domain: null,
    hasPoll: false,
    ...overrides,
  };
  return doc as CommentDoc;
}

/** Writes a comment (with its poll, if given, in the same batch); returns its id and poll. */
export async function seedComment(store: Store, tenantId: string, options: SeedOptions = {}): Promise<{ commentId: string; poll?: PollDoc }> {
  const comment = commentDoc(tenantId, options.urlId ?? '/poll-page', {
    isLocked: options.isLocked ?? false,
    isDeleted: options.isDeleted ?? false,
    hasPoll: options.poll !== undefined,
  });
  const ops: WriteOp[] = [{ op: 'insert', collection: COMMENTS, doc: comment }];
  let poll: PollDoc | undefined;
  if (options.poll !== undefined) {
    const nowMs = clock.now();
    poll = createPoll(options.poll, { tenantId, commentId: comment._id, urlId: comment.urlId, nowMs, newOptionId: () => newId(nowMs) });
    ops.push({ op: 'insert', collection: POLL_COLLECTIONS.polls, doc: poll });
  }
  await store.commit(ops);
  return poll === undefined ? { commentId: comment._id } : { commentId: comment._id, poll };
}

/** Seeds a comment on the test server's tenant. */
export function seed(t: TestServer, options: SeedOptions = {}): Promise<{ commentId: string; poll?: PollDoc }> {
  return seedComment(t.server.services.store, options.tenantId ?? t.tenant.tenantId, options);
}

/** A poll input with `n` options labelled A, B, C... */
export function pollInput(n = 3, extra: Partial<PollInput> = {}): PollInput {
  return { question: 'Which one?', options: Array.from({ length: n }, (_, i) => ({ label: String.fromCharCode(65 + i) })), ...extra };
}

/** Creates a user of the tenant through its actor (as user creation does). */
export async function addUser(t: TestServer, userId: string, tenantId = t.tenant.tenantId): Promise<void> {
  await t.server.services.system.ask(UserKind, userActorId(tenantId, userId), 'put', {
    user: {
      _id: userId,
      tenantId,
      kind: 'sso',
      username: userId,
      email: null,
      displayName: null,
      avatarSrc: null,
      websiteUrl: null,
      isProfileActivityPrivate: false,
      createdAt: new Date(clock.now()).toISOString(),
    },
  });
}

/** The votes of a poll as stored (durable state, read past every actor). */
export function storedVotes(store: Store, tenantId: string, commentId: string): Promise<PollVoteDoc[]> {
  return store.find<PollVoteDoc>(POLL_COLLECTIONS.pollVotes, { tenantId, commentId });
}

export function storedPoll(store: Store, commentId: string): Promise<PollDoc | undefined> {
  return store.get<PollDoc>(POLL_COLLECTIONS.polls, commentId);
}

/** Per-option counts computed from stored votes. */
export function countVotes(votes: readonly { optionId: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const vote of votes) counts.set(vote.optionId, (counts.get(vote.optionId) ?? 0) + 1);
  return counts;
}
