/**
 * The moderation page (docs/moderation.md, "The moderation page"): `GET
 * /auth/my-account/moderate-comments` answers an HTML shell that loads the page's bundle
 * (`/js/moderation.min.js`, built from web/moderation/ by web/build.mjs) for a signed-in
 * moderator, with the interface strings of the reader's language inlined as data (never as
 * script, so the page's policy admits only this server's own scripts). Without a session the
 * page says how to sign in (401); a signed-in user who may not moderate gets 403. Both are
 * plain pages that run no script.
 */
import { ApiError } from '../../engine/errors.js';
import { componentStrings, languageOf } from '../../translations/index.js';
import { html, PAGE_HEADERS, SafeHtml } from '../html.js';
import { requireModerator } from '../moderation/moderator.js';
import { CustomReply, route, type RouteRequest, type Schema } from '../route.js';
import { MODERATION_BASE } from './moderate-comments.js';

/** The bundle the shell loads (served by `GET /js/:file`). */
export const MODERATION_BUNDLE = 'moderation.min.js';

const QUERY: Schema = { type: 'object', properties: { locale: { type: 'string', maxLength: 20 } } };

/**
 * Headers of the shell: never framed, scripts and connections to this server only (the live
 * feed is a websocket to it), inline styles for the shell and components, avatars over https.
 */
const SHELL_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-frame-options', 'DENY'],
  ['content-security-policy', "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' https: data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"],
  ['cache-control', 'no-store'],
  ['referrer-policy', 'no-referrer'],
  ['x-content-type-options', 'nosniff'],
];

const STYLE = `*{box-sizing:border-box}body{font-family:system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f7;line-height:1.45}
:focus-visible{outline:3px solid #1a56db;outline-offset:2px}`;

/** The language the page speaks: `?locale=`, else the browser's first `Accept-Language`. */
function localeOf(req: RouteRequest<{ locale?: string }, undefined>): string {
  const given = req.query.locale ?? (req.headers['accept-language'] ?? '').split(',', 1)[0]!.split(';', 1)[0]!.trim();
  return languageOf(given);
}

/** The page's strings: the catalog's moderation buttons and the page's own. */
export function moderationStrings(language: string): Record<string, string> {
  return { ...componentStrings('comment-ui-moderation', language), ...componentStrings('moderation-page', language), LOCALE_DIRECTION: componentStrings('comment-ui', language)!['LOCALE_DIRECTION']! };
}

function shell(language: string, strings: Record<string, string>, config: Record<string, unknown>): CustomReply {
  // JSON inside a data block: `<` escaped so no text can close the element.
  const data = JSON.stringify({ ...config, strings }).replace(/</g, '\\u003c');
  const page = html`<!doctype html>
<html lang="${language}" dir="${strings['LOCALE_DIRECTION'] ?? 'ltr'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${strings['PAGE_TITLE']}</title><style>${new SafeHtml(STYLE)}</style>
<script type="application/json" id="moderation-config">${new SafeHtml(data)}</script>
<script src="/js/${MODERATION_BUNDLE}" defer></script></head>
<body><div id="moderation-app"><p>${strings['LOADING']}</p></div></body></html>`;
  return new CustomReply(200, page.markup, 'text/html; charset=utf-8', SHELL_HEADERS);
}

function refusal(status: number, language: string, strings: Record<string, string>, title: string, help: string): CustomReply {
  const page = html`<!doctype html>
<html lang="${language}" dir="${strings['LOCALE_DIRECTION'] ?? 'ltr'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${strings[title]}</title><style>${new SafeHtml(STYLE)}body{max-width:34rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><main><h1>${strings[title]}</h1><p>${strings[help]}</p></main></body></html>`;
  return new CustomReply(status, page.markup, 'text/html; charset=utf-8', PAGE_HEADERS);
}

export const moderationPageRoutes = [
  route<{ locale?: string }, undefined>({
    method: 'GET',
    path: MODERATION_BASE,
    access: 'oauth',
    answers: 'page',
    query: QUERY,
    handle: async (req) => {
      const language = localeOf(req);
      const strings = moderationStrings(language);
      let moderator;
      try {
        moderator = await requireModerator({ ...req, query: {} } as unknown as Parameters<typeof requireModerator>[0]);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'not-signed-in') return refusal(401, language, strings, 'SIGN_IN_TITLE', 'SIGN_IN_HELP');
        if (err instanceof ApiError && err.code === 'moderation-forbidden') return refusal(403, language, strings, 'FORBIDDEN_TITLE', 'FORBIDDEN_HELP');
        throw err;
      }
      return shell(language, strings, { tenantId: moderator.tenantId, username: moderator.username, base: MODERATION_BASE, live: `${MODERATION_BASE}/live` });
    },
  }),
];
