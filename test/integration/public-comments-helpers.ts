/** Calls of the widget API as a browser widget makes them (no API key, no cookies kept). */
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { LIVE_EVENT_TYPES, type LiveEvent } from '../../actors/live/live-events.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { type TestServer, withQuery } from '../fixtures/server.js';
import { LiveClient, subUrl } from '../unit/live/fixtures.js';

/** The site the test widget runs on (local, so admitted without a domain configured). */
export const SITE = 'http://localhost:3000';

export interface Answer<T = Record<string, any>> {
  status: number;
  body: T;
  headers: Headers;
}

/** One call of the widget API; success answers are checked against the OpenAPI description. */
export async function widget<T = Record<string, any>>(
  t: TestServer,
  method: string,
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: { origin: SITE, ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await checkedFetch(withQuery(`${t.url}${path}`, query), init);
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as T, headers: res.headers };
}

/** A comment body as the widget sends it. */
export function commentData(urlId: string, comment: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { commenterName: 'Reader', commenterEmail: null, comment, url: `https://blog.example.com${urlId}`, urlId, pageTitle: 'A page', parentId: null, ...extra };
}

/** A secure single sign-on payload signed with the tenant's API secret. */
export function secureSso(secret: string, user: Record<string, unknown>, timestamp = Date.now()): string {
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const verificationHash = createHmac('sha256', secret).update(`${timestamp}${data}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64: data, verificationHash, timestamp, loginURL: 'https://blog.example.com/login' });
}

/** A fresh client broadcast id. */
export const broadcast = (): string => randomUUID();

/** Opens the live channel with the ids a read handed out. */
export async function connectLive(t: TestServer, read: Record<string, any>): Promise<LiveClient> {
  assert.ok(read['urlIdWS'] && read['tenantIdWS'] && read['userIdWS'], 'a read hands out all three live ids');
  return LiveClient.connect(subUrl(t, { tenantIdWS: read['tenantIdWS'], urlId: read['urlIdWS'], userIdWS: read['userIdWS'] }), { origin: SITE });
}

/** The next event of one of these types. */
export async function nextOf(client: LiveClient, ...types: string[]): Promise<Record<string, any>> {
  for (;;) {
    const event: LiveEvent = await client.next();
    if (types.includes(event.type)) return event as Record<string, any>;
  }
}

export { LIVE_EVENT_TYPES };
