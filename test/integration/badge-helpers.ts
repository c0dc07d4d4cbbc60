import assert from 'node:assert/strict';
import type { ApiResponse, TestServer } from '../fixtures/server.js';

export interface Badge {
  _id: string;
  type: number;
  threshold: number;
  enabled: boolean;
}

export interface UserBadge {
  _id: string;
  userId: string;
  badgeId: string;
  displayedOnComments: boolean;
  type: number;
}

export interface Progress {
  _id: string;
  userId: string;
  firstCommentId: string;
  progress: Record<string, number>;
}

/** The body of a success answer (fails the test otherwise). */
export function ok<T>(r: ApiResponse<T>, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Adds a badge to the tenant's catalog. */
export async function addBadge(t: TestServer, fields: Record<string, unknown>): Promise<Badge> {
  return ok(await t.api<{ tenantBadge: Badge }>('POST', '/api/v1/tenant-badges', { body: { name: 'B', description: 'A badge', displayLabel: 'B', ...fields } }), 'add badge').tenantBadge;
}

/** A comment by `userId` on `urlId`; answers its id. */
export async function commentBy(t: TestServer, userId: string, urlId: string, parentId?: string): Promise<string> {
  const body: Record<string, unknown> = { commenterName: userId, userId, comment: `by ${userId}`, url: `https://blog.example${urlId}`, urlId, locale: 'en' };
  if (parentId !== undefined) body['parentId'] = parentId;
  return ok(await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body }), 'comment').comment._id;
}

/** The badges a user holds. */
export async function badgesOf(t: TestServer, userId: string): Promise<UserBadge[]> {
  return ok(await t.api<{ userBadges: UserBadge[] }>('GET', '/api/v1/user-badges', { query: { userId, limit: 200 } }), 'user badges').userBadges;
}

/** A user's progress, or undefined when there is none yet. */
export async function progressOf(t: TestServer, userId: string): Promise<Progress | undefined> {
  const r = await t.api<{ userBadgeProgress: Progress }>('GET', `/api/v1/user-badge-progress/user/${encodeURIComponent(userId)}`);
  if (r.status === 404) return undefined;
  return ok(r, 'progress').userBadgeProgress;
}
