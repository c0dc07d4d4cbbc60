/** What the identity tests share: calls whose success answers are checked against the OpenAPI (by `t.api`). */
import assert from 'node:assert/strict';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import type { ApiResponse, RequestOptions, TestServer } from '../fixtures/server.js';
import type { Received } from '../fixtures/smtp-sink.js';

type Json = Record<string, unknown>;

/** `t.api`, which checks a 2xx answer of an OpenAPI operation against its 200 schema (test/fixtures/openapi.ts). */
export function call<T = Json>(t: TestServer, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  return t.api<T>(method, path, options);
}

/** Calls as another tenant's key (headers), validated like `call`. */
export function as(tenant: ProvisionedTenant, tenantId: string = tenant.tenantId): Pick<RequestOptions, 'auth' | 'headers'> {
  return { auth: 'none', headers: { 'x-api-key': tenant.apiKey, 'x-tenant-id': tenantId } };
}

/** Asserts a refusal: its HTTP status and code. */
export function refused(res: ApiResponse, status: number, code: string, what = ''): void {
  assert.deepEqual([res.status, (res.body as Json)['code']], [status, code], `${what} ${JSON.stringify(res.body)}`);
}

/** Asserts a success (200), showing the body when not. */
export function ok<T>(res: ApiResponse<T>, what = ''): T {
  assert.equal(res.status, 200, `${what} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The href of the first link containing `part` in an email the SMTP sink received. */
export function linkIn(got: Received, part: string): string {
  const m = new RegExp(`href="([^"]*${part}[^"]*)"`).exec(String(got.mail.html));
  assert.ok(m, `no ${part} link in ${String(got.mail.html)}`);
  return m[1]!.replaceAll('&amp;', '&');
}
