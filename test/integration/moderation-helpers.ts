/** What the moderation tests share: moderation calls as a signed-in browser makes them. */
import assert from 'node:assert/strict';
import type { ApiResponse, TestServer } from '../fixtures/server.js';

type Json = Record<string, any>;

/** The moderation API's base path. */
export const MOD = '/auth/my-account/moderate-comments';

/** A moderation call with a session cookie (or none), its success checked against the OpenAPI. */
export function mod<T = Json>(t: TestServer, cookie: string | null, method: string, path: string, query: Record<string, string | number | boolean | undefined> = {}, body?: unknown): Promise<ApiResponse<T>> {
  return t.api<T>(method, `${MOD}${path}`, { auth: 'none', headers: cookie === null ? {} : { cookie }, query, ...(body === undefined ? {} : { body }) });
}

/** The answer's body, asserting it succeeded. */
export function good<T>(res: ApiResponse<T>, what = ''): T {
  assert.equal(res.status, 200, `${what} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Asserts a refusal with this status and code. */
export function no(res: ApiResponse, status: number, code: string, what = ''): Json {
  assert.equal(res.status, status, `${what} ${JSON.stringify(res.body)}`);
  assert.equal((res.body as Json)['code'], code, what);
  return res.body as Json;
}
