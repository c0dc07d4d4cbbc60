/**
 * Clients identified by an https URL (OAuth Client ID Metadata Documents): the URL is the
 * `client_id`, and the JSON document it serves is the client's metadata. Fetched at most
 * 2.5 s, at most 5 KiB, no redirects followed, never from a loopback, private or link-local
 * address (the webhooks' address policy, on the very address connected to) unless the operator
 * allows it (`OAUTH_ALLOW_PRIVATE_METADATA`). Documents are kept 5 minutes, at most 1,000.
 */
import https from 'node:https';
import { LRUCache } from 'lru-cache';
import { type ClientDoc, clientMetadata } from '../../actors/oauth/client-model.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { assertDeliverable, ForbiddenAddressError, guardedLookup } from '../../webhooks/address-policy.js';

/** How long a fetch may take, connection to last byte. */
export const METADATA_TIMEOUT_MS = 2500;
/** The largest document read. */
export const METADATA_MAX_BYTES = 5 * 1024;
const CACHE_MS = 5 * 60 * 1000;
const MAX_URL = 2000;

/** Whether a `client_id` is (meant as) a metadata document URL. */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

const cache = new LRUCache<string, ClientDoc>({ max: 1000, ttl: CACHE_MS });
const inFlight = new Map<string, Promise<ClientDoc>>();

/** Why a document was not usable: `invalid_client`, with the reason. */
function unusable(url: string, why: string): ApiError {
  return new ApiError('oauth-invalid-client', `The client metadata document at ${url.slice(0, 200)} ${why}`);
}

/** The client a metadata document URL names (cached), or throws `invalid_client`. */
export function documentClient(url: string, allowPrivate: boolean): Promise<ClientDoc> {
  const cached = cache.get(url);
  if (cached !== undefined) return Promise.resolve(cached);
  let pending = inFlight.get(url);
  if (pending === undefined) {
    pending = fetchDocument(url, allowPrivate).finally(() => inFlight.delete(url));
    inFlight.set(url, pending);
  }
  return pending;
}

/** Checks the URL form the specification asks of a client_id: https, a path, no fragment, credentials or dot segments. */
function checkClientIdUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw unusable(raw, 'is not a URL.');
  }
  if (raw.length > MAX_URL || url.protocol !== 'https:' || raw.includes('#') || url.username !== '' || url.password !== '' || url.pathname === '/' || /\/\.\.?(?:\/|$)/.test(raw.slice(url.origin.length))) {
    throw unusable(raw, 'is not usable as a client_id: an https URL with a path, without fragment, credentials or dot segments.');
  }
  return url;
}

async function fetchDocument(raw: string, allowPrivate: boolean): Promise<ClientDoc> {
  const url = checkClientIdUrl(raw);
  let text: string;
  try {
    assertDeliverable(url, allowPrivate);
    text = await get(url, allowPrivate);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof ForbiddenAddressError) throw unusable(raw, 'is on a loopback, private or link-local address.');
    throw unusable(raw, `could not be fetched: ${(err as Error).message}`.slice(0, 300));
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw unusable(raw, 'is not JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw unusable(raw, 'is not a JSON object.');
  const fields = doc as Record<string, unknown>;
  if (fields['client_id'] !== raw) throw unusable(raw, 'names another client_id than its own URL.');
  let metadata;
  try {
    metadata = clientMetadata(fields, 'none');
  } catch (err) {
    throw unusable(raw, `is not valid: ${(err as Error).message}`);
  }
  if (metadata.tokenEndpointAuthMethod !== 'none') throw unusable(raw, 'asks for a client secret: a published document can only describe a public client (token_endpoint_auth_method none).');
  const client: ClientDoc = { _id: raw, ...metadata, secretHash: null, partner: false, createdAt: clock.now() };
  cache.set(raw, client);
  return client;
}

/** GET over https: the body as text, if the answer is 200 and at most `METADATA_MAX_BYTES`. */
function get(url: URL, allowPrivate: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, text?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err !== null) {
        req.destroy();
        reject(err);
      } else resolve(text!);
    };
    const req = https.request(url, { method: 'GET', headers: { accept: 'application/json' }, lookup: guardedLookup(allowPrivate), agent: false }, (res) => {
      if (res.statusCode !== 200) return finish(new Error(`answered HTTP ${res.statusCode ?? 0}`));
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > METADATA_MAX_BYTES) return finish(new Error(`is larger than ${METADATA_MAX_BYTES} bytes`));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > METADATA_MAX_BYTES) finish(new Error(`is larger than ${METADATA_MAX_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => finish(null, Buffer.concat(chunks).toString('utf8')));
      res.on('error', (err) => finish(err));
    });
    const timer = setTimeout(() => finish(new Error(`gave no answer within ${METADATA_TIMEOUT_MS} ms`)), METADATA_TIMEOUT_MS);
    req.on('error', (err) => finish(err));
    req.end();
  });
}
