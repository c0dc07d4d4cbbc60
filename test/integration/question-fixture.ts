/** Helpers of the question tests: making configurations, results and comments through the API. */
import assert from 'node:assert/strict';
import type { ApiResponse, RequestOptions, TestServer } from '../fixtures/server.js';

export interface ConfigView {
  _id: string;
  name: string;
  question: string;
  type: string;
  min: number;
  max: number;
  numStars: number;
  defaultValue: number;
  usedCount: number;
  lastUsed: string;
  createdAt: string;
  subQuestionIds: string[];
}

export interface ResultView {
  _id: string;
  urlId: string;
  questionId: string;
  value: number;
  userId: string;
  anonUserId: string;
  commentId: string | null;
  createdAt: string;
  meta: { name: string; values: string[] }[] | null;
}

export interface Aggregate {
  total: number;
  average: number;
  createdAt: string;
  countsByValue: Record<string, number>;
  dataByUrlId: Record<string, { v: Record<string, number>; total: number }>;
  dataByDateBucket?: Record<string, { v: Record<string, number>; total: number }>;
}

export function ok<T>(r: ApiResponse<T>, what = 'call'): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

export function refused(r: ApiResponse, status: number, code: string, what = 'call'): void {
  assert.deepEqual([r.status, (r.body as { code?: string }).code], [status, code], `${what}: ${JSON.stringify(r.body)}`);
}

/** Creates a configuration; `fields` override a star question. */
export async function makeConfig(t: TestServer, fields: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<ConfigView> {
  const body = { name: 'Rating', question: 'How was it?', type: 'star', reportingOrder: 0, ...fields };
  return ok(await t.api<{ questionConfig: ConfigView }>('POST', '/api/v1/question-configs', { ...options, body }), 'create config').questionConfig;
}

/** Creates a result. */
export async function makeResult(t: TestServer, questionId: string, value: number, fields: Record<string, unknown> = {}): Promise<ResultView> {
  const body = { urlId: '/q-page', questionId, value, ...fields };
  return ok(await t.api<{ questionResult: ResultView }>('POST', '/api/v1/question-results', { body }), 'create result').questionResult;
}

/** Creates a comment, with `questionValues` when given. */
export function postComment(t: TestServer, urlId: string, extra: Record<string, unknown> = {}): Promise<ApiResponse<{ comment: { _id: string }; code?: string }>> {
  return t.api('POST', '/api/v1/comments', { body: { commenterName: 'Quinn', comment: `Thoughts on ${urlId}`, url: 'https://blog.example/q', urlId, locale: 'en_us', ...extra } });
}

/** Total credits the tenant was charged so far. */
export async function creditsUsed(t: TestServer): Promise<number> {
  await t.server.services.charges.flush();
  const r = await t.api<{ tenantDailyUsages: { apiCreditsUsed: number }[] }>('GET', '/api/v1/tenant-daily-usage');
  return r.body.tenantDailyUsages.reduce((sum, d) => sum + d.apiCreditsUsed, 0);
}
