/**
 * HTML answers (the OAuth consent and connected-apps pages): a tagged template that escapes
 * everything it is given unless it is already markup, the page shell, redirects, and the
 * headers every page carries. Pages work without JavaScript and run none.
 */
import { CustomReply } from './route.js';

/** Markup that is safe to insert as is: made only by `html`. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value (quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function piece(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Markup from a template: every interpolated value is escaped unless it is `SafeHtml` (lists are joined). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/**
 * Headers of every page and redirect: never shown in a frame (clickjacking: both the old header
 * and CSP), no script, style only inline, images only over https, never cached, and no
 * `Referer` (the authorization request's `state` stays out of other sites' logs).
 */
export const PAGE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-frame-options', 'DENY'],
  ['content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src https:; frame-ancestors 'none'; base-uri 'none'"],
  ['cache-control', 'no-store'],
  ['referrer-policy', 'no-referrer'],
  ['x-content-type-options', 'nosniff'],
];

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222;line-height:1.5}
h1{font-size:1.4rem}ul{padding-left:1.2rem}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.5rem;cursor:pointer}
.muted{color:#666;font-size:.9rem}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem;border-bottom:1px solid #ddd}
img.logo{max-width:64px;max-height:64px;float:right}`;

/** A whole HTML page with the page headers. */
export function htmlPage(status: number, title: string, body: SafeHtml): CustomReply {
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${new SafeHtml(STYLE)}</style></head>
<body>${body}</body></html>`;
  return new CustomReply(status, page.markup, 'text/html; charset=utf-8', PAGE_HEADERS);
}

/** A redirect (302 after a GET, 303 after a form post) with the page headers. */
export function redirectTo(status: 302 | 303, location: string): CustomReply {
  return new CustomReply(status, '', 'text/plain; charset=utf-8', [['location', location], ...PAGE_HEADERS]);
}
