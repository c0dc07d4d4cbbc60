/**
 * Requests for cluster tests. Each goes on a connection of its own, so the kernel spreads them
 * over the nodes sharing the port, as it would a crowd of clients.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { VOTES } from '../../actors/page/vote-doc.js';
import type { LogLine, TestCluster } from '../fixtures/cluster.js';

export interface Reply<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

/** One request on a fresh connection; a connection error or 60 s without an answer is status 0. */
export function call<T = Record<string, unknown>>(c: TestCluster, method: string, path: string, body?: unknown): Promise<Reply<T>> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port: c.port, method, path, agent: false, headers: { ...c.headers, ...(payload === undefined ? {} : { 'content-length': Buffer.byteLength(payload) }) }, timeout: 60_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Left as text for the assertion message.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T });
        });
        res.on('error', () => resolve({ status: 0, body: {} as T }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: {} as T }));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Creates a comment on `urlId`; returns its id. */
export async function comment(c: TestCluster, urlId: string, extra: Record<string, unknown> = {}): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const r = await call<{ comment: { _id: string } }>(c, 'POST', '/api/v1/comments', {
      commenterName: 'Ann',
      comment: `On ${urlId}`,
      url: `https://example.com${urlId}`,
      urlId,
      locale: 'en_us',
      ...extra,
    });
    if (r.status === 200) return r.body.comment._id;
    assert.ok(attempt < 20 && r.status === 503, `comment on ${urlId}: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Runs `count` tasks, at most `width` at a time. */
export async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

/** Every node's log lines of one event. */
export function logsOf(c: TestCluster, event: string): (LogLine & { node: string })[] {
  return c.nodes.flatMap((node) => node.logs.filter((line) => line.event === event).map((line) => ({ ...line, node: node.name })));
}

/**
 * No actor was active twice: along the log of every key (activations from every node, in the
 * order this process read them), the lease epoch never goes back. An activation under an older
 * epoch after one under a newer would be a node serving a shard it no longer held.
 */
export function assertNoDuplicateActivation(c: TestCluster): number {
  const byKey = new Map<string, { epoch: number; node: string; at: number }[]>();
  for (const line of logsOf(c, 'actor-activated')) {
    const list = byKey.get(String(line['key'])) ?? [];
    list.push({ epoch: Number(line['epoch']), node: line.node, at: line.at });
    byKey.set(String(line['key']), list);
  }
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.at - b.at);
    for (let i = 1; i < list.length; i++) {
      assert.ok(list[i]!.epoch >= list[i - 1]!.epoch, `${key} activated on ${list[i]!.node} under epoch ${list[i]!.epoch} after ${list[i - 1]!.node} under ${list[i - 1]!.epoch}`);
    }
  }
  return byKey.size;
}

/** Waits until a request gets through (after a failure), up to `ms`. */
export async function untilServing(c: TestCluster, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await call(c, 'GET', '/api/v1/me');
    if (r.status === 200) return;
    if (Date.now() > deadline) assert.fail(`the cluster did not serve again within ${ms} ms: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface VoteOutcome {
  readonly status: number;
  readonly voteId: string | undefined;
  readonly code: string | undefined;
}

export function vote(c: TestCluster, commentId: string, voter: string, direction: 'up' | 'down'): Promise<VoteOutcome> {
  return call<{ voteId?: string; code?: string }>(c, 'POST', `/api/v1/votes?commentId=${commentId}&direction=${direction}&anonUserId=${voter}`).then((r) => ({
    status: r.status,
    voteId: r.body.voteId,
    code: r.body.code,
  }));
}

/** The votes stored for comments, by id (read past every actor). */
async function storedVotes(c: TestCluster, commentIds: readonly string[]): Promise<Map<string, { commentId: string; direction: number }>> {
  const store = await c.store();
  const out = new Map<string, { commentId: string; direction: number }>();
  for (const commentId of commentIds) {
    for (const doc of await store.find<{ _id: string; commentId: string; direction: number }>(VOTES, { commentId })) out.set(doc._id, doc);
  }
  return out;
}

/** The counts a comment shows, through the cluster. */
export async function counts(c: TestCluster, commentId: string): Promise<{ votesUp: number; votesDown: number }> {
  const r = await call<{ comment: { votesUp: number; votesDown: number } }>(c, 'GET', `/api/v1/comments/${commentId}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { votesUp: r.body.comment.votesUp ?? 0, votesDown: r.body.comment.votesDown ?? 0 };
}

/** Checks that every acknowledged vote is stored and that each comment's counts equal its stored votes. */
export async function assertVotesKept(c: TestCluster, commentIds: readonly string[], outcomes: readonly VoteOutcome[]): Promise<number> {
  const stored = await storedVotes(c, commentIds);
  const acknowledged = outcomes.filter((o) => o.status === 200);
  for (const o of acknowledged) assert.ok(stored.has(o.voteId!), `acknowledged vote ${o.voteId} is stored`);
  for (const commentId of commentIds) {
    const mine = [...stored.values()].filter((v) => v.commentId === commentId);
    assert.deepEqual(await counts(c, commentId), { votesUp: mine.filter((v) => v.direction > 0).length, votesDown: mine.filter((v) => v.direction < 0).length }, `counts of ${commentId}`);
  }
  return acknowledged.length;
}
