/**
 * Where a login link opened in a browser lands (docs/identity.md, "Login links"). A browser
 * navigation (its `Accept` names `text/html`) is sent on with 303: to the link's `redirectURL`
 * when it is a safe target (a path on this server, this server's own host, or one of the
 * tenant's configured domains; never anywhere else, so a link cannot be made an open
 * redirect), else to the moderation page for a user who may moderate, else it gets a small page
 * saying they are signed in. A link that cannot be used (unknown, used, expired) is explained
 * on a page too, with the refusal's status. API clients keep the JSON answers.
 */
import { siteAllowed } from '../actors/tenant/domain-configs.js';
import { tenantSettings } from '../actors/tenant/tenant-actor.js';
import { ApiError } from '../engine/errors.js';
import { componentStrings, languageOf } from '../translations/index.js';
import { html, PAGE_HEADERS } from './html.js';
import { requireModerator } from './moderation/moderator.js';
import { CustomReply, type RouteRequest } from './route.js';
import { MODERATION_BASE } from './routes/moderate-comments.js';
import { TENANT_SESSION_COOKIE } from './tenant-session.js';

/** Whether the request is a browser's navigation (it prefers a page to JSON). */
export function wantsPage(headers: Readonly<Record<string, string>>): boolean {
  const accept = (headers['accept'] ?? '').toLowerCase();
  return accept.includes('text/html');
}

/**
 * The target to send the browser to when `redirectURL` is safe, else null: a path of this
 * server (`/...`, never `//host` nor `/\host`, which browsers read as another host), or an
 * http(s) address on this server's host or one of the tenant's domains.
 */
export async function safeRedirect(req: RouteRequest<unknown, unknown>, tenantId: string, redirectURL: string | null): Promise<string | null> {
  if (redirectURL === null || redirectURL === '' || /[\u0000-\u001f\\]/.test(redirectURL)) return null;
  if (redirectURL.startsWith('/')) return redirectURL.startsWith('//') ? null : redirectURL;
  let url: URL;
  try {
    url = new URL(redirectURL);
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') return null;
  const host = url.host.toLowerCase();
  if (host === (req.headers['host'] ?? '').toLowerCase()) return url.href;
  const settings = await tenantSettings(req.app.system, tenantId, null);
  return settings.allowedDomains.length > 0 && siteAllowed(settings.allowedDomains, host) ? url.href : null;
}

/** The answer to a browser that opened a login link: a redirect, or the signed-in page. */
export async function landingPage(req: RouteRequest<unknown, unknown>, tenantId: string, username: string, token: string, redirectURL: string | null): Promise<CustomReply> {
  const target = await safeRedirect(req, tenantId, redirectURL);
  if (target !== null) return redirect(target);
  // The new session, as the browser's next request will carry it.
  const signedIn = { ...req, query: {}, headers: { ...req.headers, cookie: `${TENANT_SESSION_COOKIE}=${token}` } };
  const mayModerate = await requireModerator(signedIn as unknown as Parameters<typeof requireModerator>[0]).then(
    () => true,
    () => false,
  );
  if (mayModerate) return redirect(MODERATION_BASE);
  const strings = pageStrings(req);
  return smallPage(200, strings, 'SIGNED_IN_TITLE', (strings['SIGNED_IN_BODY'] ?? '{name}').replace('{name}', username));
}

const LINK_REFUSALS: Readonly<Record<string, string>> = {
  'login-link-invalid': 'LINK_INVALID',
  'login-link-used': 'LINK_USED',
  'login-link-expired': 'LINK_EXPIRED',
};

/** The page a browser gets for a login link that cannot be used, or undefined for any other failure. */
export function refusedLinkPage(req: RouteRequest<unknown, unknown>, err: unknown): CustomReply | undefined {
  if (!(err instanceof ApiError) || !wantsPage(req.headers)) return undefined;
  const key = LINK_REFUSALS[err.code];
  if (key === undefined) return undefined;
  const strings = pageStrings(req);
  return smallPage(err.status, strings, 'LINK_REFUSED_TITLE', strings[key] ?? err.message);
}

/** The page strings in the browser's language, with the direction it is written in. */
function pageStrings(req: RouteRequest<unknown, unknown>): Record<string, string> {
  const language = languageOf((req.headers['accept-language'] ?? '').split(',', 1)[0]!.split(';', 1)[0]!.trim());
  return { ...componentStrings('moderation-page', language), LANGUAGE: language, LOCALE_DIRECTION: componentStrings('comment-ui', language)?.['LOCALE_DIRECTION'] ?? 'ltr' };
}

function smallPage(status: number, strings: Record<string, string>, title: string, text: string): CustomReply {
  const page = html`<!doctype html>
<html lang="${strings['LANGUAGE']}" dir="${strings['LOCALE_DIRECTION']}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${strings[title] ?? title}</title><style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style></head>
<body><main><h1>${strings[title] ?? title}</h1><p>${text}</p></main></body></html>`;
  return new CustomReply(status, page.markup, 'text/html; charset=utf-8', PAGE_HEADERS);
}

function redirect(location: string): CustomReply {
  return new CustomReply(303, '', 'text/plain; charset=utf-8', [['location', location], ...PAGE_HEADERS]);
}
