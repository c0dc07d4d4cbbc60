/**
 * Anonymous readers of widget endpoints are told apart by a session cookie the server issues:
 * `fc_anon`, a random 128-bit id, HttpOnly, for a year. Widgets call from other sites, so the
 * cookie must be `SameSite=None`, which browsers accept only with `Secure`: when the request
 * came over https (behind a reverse proxy with `TRUST_PROXY` that sets `X-Forwarded-Proto` or
 * the standard `Forwarded: proto=https`, in any case)
 * the cookie is `SameSite=None; Secure`, otherwise (plain http, development) `SameSite=Lax`.
 */
import { randomBytes } from 'node:crypto';
import { forwardedProto, limitKey } from './client-address.js';
import type { RouteRequest } from './route.js';

/** Name of the anonymous session cookie. */
export const ANON_COOKIE = 'fc_anon';
const ID = /^[A-Za-z0-9_-]{22}$/;
const MAX_AGE_S = 365 * 24 * 60 * 60;

/** The value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The request's anonymous session id; a new one is issued (Set-Cookie) when it has none. */
export function anonSession(req: RouteRequest<unknown, unknown>): string {
  const current = cookieValue(req.headers['cookie'], ANON_COOKIE);
  if (current !== undefined && ID.test(current)) return current;
  // A request without the cookie is a new reader: bounded per client, or one client is a crowd.
  req.app.limits.sessions.spend(limitKey(req.ip), 'new anonymous sessions');
  const id = randomBytes(16).toString('base64url');
  const https = req.app.config.trustProxy && forwardedProto(req.headers) === 'https';
  const attributes = https ? 'SameSite=None; Secure' : 'SameSite=Lax';
  req.setHeader('set-cookie', `${ANON_COOKIE}=${id}; Path=/; Max-Age=${MAX_AGE_S}; HttpOnly; ${attributes}`);
  return id;
}
