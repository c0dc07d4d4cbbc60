/**
 * Helpers shared by the page integration tests (comments, votes, flags, pages, reactions).
 */
import assert from 'node:assert/strict';
import type { TestServer } from '../fixtures/server.js';

export interface Comment {
  _id: string;
  id: string;
  urlId: string;
  parentId: string | null;
  comment: string;
  commentHTML: string;
  votes: number;
  votesUp: number;
  votesDown: number;
  flagCount: number;
  approved: boolean;
  isSpam: boolean;
  isLocked: boolean;
  userId: string | null;
  hasChildren?: boolean;
  children?: Comment[];
  [field: string]: unknown;
}

/** Creates a comment through the API and returns it (fails the test otherwise). */
export async function postComment(t: TestServer, urlId: string, fields: Record<string, unknown> = {}, query: Record<string, string | boolean> = {}): Promise<Comment> {
  const r = await t.api<{ comment: Comment }>('POST', '/api/v1/comments', {
    query,
    body: { commenterName: 'Ann', comment: 'Hello', url: `https://example.com/${urlId}`, urlId, locale: 'en_us', ...fields },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.comment;
}

/** The comments a read returns. */
export async function listComments(t: TestServer, query: Record<string, string | number | boolean | readonly string[] | undefined>): Promise<Comment[]> {
  const r = await t.api<{ comments: Comment[] }>('GET', '/api/v1/comments', { query });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.comments;
}

export async function getComment(t: TestServer, id: string): Promise<Comment> {
  const r = await t.api<{ comment: Comment }>('GET', `/api/v1/comments/${id}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.comment;
}

/** Status and code of an answer, for compact assertions. */
export function outcome(r: { status: number; body: unknown }): [number, unknown] {
  return [r.status, (r.body as { code?: unknown }).code];
}

/** Events published on the server's bus from now on, by topic. */
export function recordEvents(t: TestServer): { events: { topic: string; event: Record<string, unknown> }[]; stop: () => void } {
  const events: { topic: string; event: Record<string, unknown> }[] = [];
  const stop = t.server.services.bus.listen((topic, event) => events.push({ topic, event: event as Record<string, unknown> }));
  return { events, stop };
}

/** Runs `count` tasks with at most `width` in flight. */
export async function inParallel<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}
