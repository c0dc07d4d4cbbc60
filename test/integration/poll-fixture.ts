/**
 * Helpers shared by the poll integration tests. Comments are the page actor's: they are made,
 * locked and deleted through the comment API, as clients do.
 */
import assert from 'node:assert/strict';
import { clock } from '../../engine/clock.js';
import { POLL_COLLECTIONS, type PollDoc, type PollInput, type PollVoteDoc } from '../../actors/poll/poll-model.js';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import type { Store } from '../../storage/store.js';
import type { TestServer } from '../fixtures/server.js';

export type { PollView, PollVoteView } from '../../actors/poll/poll-model.js';
import type { PollView } from '../../actors/poll/poll-model.js';

export interface SeedOptions {
  /** Another tenant than the test server's first one. */
  as?: ProvisionedTenant;
  urlId?: string;
  isLocked?: boolean;
  /** Deleted after creation (with its poll, by the page). */
  isDeleted?: boolean;
  poll?: PollInput;
}

/** Credentials of a tenant, as request headers. */
export function credentials(tenant: ProvisionedTenant): Record<string, string> {
  return { 'x-api-key': tenant.apiKey, 'x-tenant-id': tenant.tenantId };
}

/** Creates a comment (with a poll, if given) through the API; returns its id and poll. */
export async function seed(t: TestServer, options: SeedOptions = {}): Promise<{ commentId: string; poll?: PollView }> {
  const headers = options.as === undefined ? {} : credentials(options.as);
  const urlId = options.urlId ?? '/poll-page';
  const created = await t.api<{ comment: { _id: string; poll?: PollView } }>('POST', '/api/v1/comments', {
    headers,
    body: {
      commenterName: 'Asker',
      comment: 'What do you think?',
      url: `https://example.com${urlId}`,
      urlId,
      locale: 'en_us',
      ...(options.poll === undefined ? {} : { poll: options.poll }),
    },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const commentId = created.body.comment._id;
  if (options.isLocked) {
    const locked = await t.api('PATCH', `/api/v1/comments/${commentId}`, { headers, body: { isLocked: true } });
    assert.equal(locked.status, 200, JSON.stringify(locked.body));
  }
  if (options.isDeleted) assert.equal((await t.api('DELETE', `/api/v1/comments/${commentId}`, { headers })).status, 200);
  const poll = created.body.comment.poll;
  return poll === undefined ? { commentId } : { commentId, poll };
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
