import { createHmac } from 'node:crypto';
import { clock } from '../../engine/clock.js';
import type { ApiResponse, RequestOptions, TestServer } from '../fixtures/server.js';

/** The `sso` parameter of a secure single sign-on user, signed with the tenant's API secret. */
export function secureSso(secret: string, user: Record<string, unknown>): string {
  const timestamp = clock.now();
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const verificationHash = createHmac('sha256', secret).update(`${timestamp}${data}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64: data, verificationHash, timestamp });
}

/** A public call as the widget makes it: no API key, from the tenant's site, with an optional cookie. */
export function pub<T = Record<string, unknown>>(t: TestServer, method: string, path: string, options: Omit<RequestOptions, 'auth'> & { cookie?: string } = {}): Promise<ApiResponse<T>> {
  const { cookie, headers, ...rest } = options;
  return t.api<T>(method, path, { ...rest, auth: 'none', headers: { origin: 'https://blog.example', ...(cookie ? { cookie } : {}), ...headers } });
}

export interface FeedPost {
  _id: string;
  tenantId: string;
  title?: string;
  contentHTML?: string;
  fromUserId?: string;
  fromUserDisplayName?: string | null;
  tags: string[];
  media: { sizes: { w: number; h: number; src: string }[] }[];
  links: { url?: string }[];
  reacts: Record<string, number>;
  meta?: Record<string, string>;
}

/** Creates an SSO user through the API (answers the stored id, `<tenantId>:<id>`). */
export async function ssoUserOf(t: TestServer, id: string, displayName = id): Promise<string> {
  const r = await t.api('POST', '/api/v1/sso-users', { body: { id, username: id, email: `${id}@blog.example`, displayName } });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return `${t.tenant.tenantId}:${id}`;
}
