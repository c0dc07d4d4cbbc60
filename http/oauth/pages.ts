/**
 * The pages of the authorization server: the consent page and the connected apps. Plain HTML
 * forms (no script), posted back with the session's CSRF token; see `http/html.ts` for the
 * headers that keep them out of frames.
 */
import type { GrantDoc } from '../../actors/oauth/grant-protocol.js';
import type { Scope } from '../../actors/oauth/token-store.js';
import { html, htmlPage, type SafeHtml } from '../html.js';
import type { CustomReply } from '../route.js';
import type { AuthorizationRequest, AuthorizeParams } from './authorization.js';
import { OAUTH_PATHS } from './issuer.js';

const SCOPE_TEXT: Readonly<Record<Scope, string>> = {
  read: 'read your comments, pages, users and settings',
  write: 'create, change and delete them',
};

function hidden(name: string, value: string | undefined): SafeHtml {
  return value === undefined ? html`` : html`<input type="hidden" name="${name}" value="${value}">`;
}

function clientName(name: string | null, clientId: string): string {
  return name ?? clientId;
}

/** Where the client sends the user back, as people recognise it: its origin (or scheme). */
function destination(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin !== 'null' ? url.origin : url.protocol;
}

/** The consent page: who asks for what, approve or deny. The form repeats the request as sent. */
export function consentPage(request: AuthorizationRequest, params: AuthorizeParams, who: { username: string; tenantName: string }, csrf: string): CustomReply {
  const client = request.client;
  const name = clientName(client.clientName, client._id);
  const logo = client.logoUri?.startsWith('https://') ? html`<img class="logo" src="${client.logoUri}" alt="">` : html``;
  const site = client.clientUri === null ? html`` : html`<p class="muted">Its site: <a href="${client.clientUri}" rel="noopener noreferrer">${client.clientUri}</a></p>`;
  const body = html`${logo}<h1>Connect ${name}?</h1>
<p><strong>${name}</strong> asks to use the ${who.tenantName} account as <strong>${who.username}</strong>. It will be able to:</p>
<ul>${request.scopes.map((s) => html`<li>${SCOPE_TEXT[s]}</li>`)}</ul>
${site}<p class="muted">Client id: ${client._id}. You will be sent back to ${destination(request.redirectUri)}. You can disconnect it any time from <a href="${OAUTH_PATHS.connectedApps}">your connected apps</a>.</p>
<form method="post" action="${OAUTH_PATHS.authorize}">
${hidden('response_type', params.response_type)}${hidden('client_id', params.client_id)}${hidden('redirect_uri', params.redirect_uri)}${hidden('scope', params.scope)}${hidden('state', params.state)}${hidden('code_challenge', params.code_challenge)}${hidden('code_challenge_method', params.code_challenge_method)}${hidden('resource', params.resource)}${hidden('csrf', csrf)}
<button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button>
</form>`;
  return htmlPage(200, `Connect ${name}`, body);
}

function when(ms: number | null): string {
  return ms === null ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** The user's connected apps, each with a button that disconnects it. */
export function connectedAppsPage(grants: readonly GrantDoc[], who: { username: string }, csrf: string, notice: string | null): CustomReply {
  const rows = grants.map(
    (g) => html`<tr><td>${clientName(g.clientName, g.clientId)}<br><span class="muted">${g.clientId}</span></td><td>${g.scopes.join(', ')}</td><td>${when(g.createdAt)}</td><td>${when(g.lastUsedAt)}</td>
<td><form method="post" action="${OAUTH_PATHS.revokeApp}">${hidden('grant_id', g._id)}${hidden('csrf', csrf)}<button type="submit">Disconnect</button></form></td></tr>`,
  );
  const list =
    grants.length === 0
      ? html`<p>No application is connected.</p>`
      : html`<table><thead><tr><th>Application</th><th>Access</th><th>Connected</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  const body = html`<h1>Connected apps</h1><p class="muted">Signed in as ${who.username}.</p>${notice === null ? html`` : html`<p><strong>${notice}</strong></p>`}${list}`;
  return htmlPage(200, 'Connected apps', body);
}
