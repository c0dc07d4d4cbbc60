/**
 * Finding a client and checking its credentials at the token and revocation endpoints
 * (RFC 6749 §2.3): `client_secret_basic` (the `Authorization: Basic` header), or
 * `client_secret_post` (`client_id` and `client_secret` in the form); a public client sends
 * only `client_id`. A confidential client may use either of the two secret methods.
 */
import { timingSafeEqual } from 'node:crypto';
import { ClientKind } from '../../actors/oauth/client-actor.js';
import type { ClientDoc } from '../../actors/oauth/client-model.js';
import { ApiError } from '../../engine/errors.js';
import { hashSecret } from '../../engine/ids.js';
import type { AppServices } from '../services.js';
import { documentClient, isDocumentClientId } from './metadata-document.js';

const REGISTERED_ID = /^fcc_[A-Za-z0-9_-]{24}$/;
const BASIC = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;

/** The client a `client_id` names (registered, or a metadata document), or null when none. */
export async function findClient(app: AppServices, clientId: string): Promise<ClientDoc | null> {
  if (isDocumentClientId(clientId)) return documentClient(clientId, app.config.oauthAllowPrivateMetadata);
  if (!REGISTERED_ID.test(clientId)) return null;
  return app.system.ask(ClientKind, clientId, 'get', null);
}

/** The form fields client authentication reads. */
export interface ClientFields {
  readonly client_id?: string;
  readonly client_secret?: string;
}

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new ApiError('oauth-invalid-client', 'The Basic credentials are not valid form-encoding.');
  }
}

/**
 * The client of a token or revocation request, authenticated. Refusals are `invalid_client`
 * (401; with `WWW-Authenticate: Basic` when the header was used, through `setHeader`), or
 * `invalid_request` when two methods are mixed.
 */
export async function authenticateClient(app: AppServices, headers: Readonly<Record<string, string>>, form: ClientFields, setHeader: (name: string, value: string) => void): Promise<ClientDoc> {
  const basic = headers['authorization'] === undefined ? null : BASIC.exec(headers['authorization']);
  let clientId = form.client_id;
  let secret = form.client_secret;
  if (basic !== null) {
    setHeader('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
    if (secret !== undefined) throw new ApiError('oauth-invalid-request', 'Use one client authentication method: the Authorization header or client_secret, not both.');
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new ApiError('oauth-invalid-client', 'The Basic credentials are not client_id:client_secret.');
    const fromHeader = formDecode(decoded.slice(0, colon));
    if (clientId !== undefined && clientId !== fromHeader) throw new ApiError('oauth-invalid-request', 'client_id differs from the one in the Authorization header.');
    clientId = fromHeader;
    secret = formDecode(decoded.slice(colon + 1));
  }
  if (clientId === undefined || clientId === '') throw new ApiError('oauth-invalid-client', 'The client is not identified: send client_id (public clients) or authenticate (confidential clients).');
  const client = await findClient(app, clientId);
  if (client === null) throw new ApiError('oauth-invalid-client', 'No client has this client_id.');
  if (client.secretHash === null) {
    if (secret !== undefined && secret !== '') throw new ApiError('oauth-invalid-client', 'This client is public: it has no secret to send.');
    return client;
  }
  if (secret === undefined || secret === '') throw new ApiError('oauth-invalid-client', 'This client is confidential: authenticate with client_secret_basic or client_secret_post.');
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(client.secretHash, 'hex');
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw new ApiError('oauth-invalid-client', 'The client secret is wrong.');
  return client;
}
