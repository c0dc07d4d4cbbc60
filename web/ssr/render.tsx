/**
 * The server-rendered thread (`GET /ssr/comments`): the widget's own components rendered to
 * HTML with preact-render-to-string, so the markup and custom CSS are the script widget's.
 * Bundled for Node by web/build.mjs into dist/web/ssr-render.mjs and loaded by the route.
 */
import { renderToString } from 'preact-render-to-string';
import { FALLBACK } from '../shared/strings.js';
import { STYLES } from '../shared/styles.js';
import type { SortDirection, WidgetComment, WidgetUser } from '../shared/types.js';
import { WidgetView } from '../shared/components/widget-view.js';
import { type SsrLinks, WidgetController } from '../widget/controller.js';

/** What the route hands over: a page read's answer and where forms and links go. */
export interface SsrInput {
  tenantId: string;
  urlId: string;
  locale: string;
  direction: SortDirection;
  strings: Record<string, string>;
  answer: {
    comments: WidgetComment[];
    user: WidgetUser | null;
    hasMore?: boolean;
    pageNumber?: number;
    commentCount?: number;
    isClosed?: boolean;
    customConfig?: Record<string, unknown>;
  };
  links: SsrLinks;
  hasDarkBackground: boolean;
  customCSS: string;
}

/** The whole HTML page. */
export function renderThread(input: SsrInput): string {
  const c = new WidgetController({ tenantId: input.tenantId, urlId: input.urlId, locale: input.locale, defaultSortDirection: input.direction }, 'http://localhost', () => {});
  c.ssr = input.links;
  c.strings = { ...FALLBACK, ...input.strings };
  c.user = input.answer.user;
  for (const comment of input.answer.comments) {
    c.comments.set(comment._id, comment);
    c.order.push(comment._id);
  }
  c.hasMore = Boolean(input.answer.hasMore);
  c.page = input.answer.pageNumber ?? 0;
  c.commentCount = input.answer.commentCount ?? 0;
  c.isClosed = Boolean(input.answer.isClosed);
  c.loading = false;
  if (input.answer.customConfig) c.applyServerConfig(input.answer.customConfig);
  const body = renderToString(<WidgetView c={c} dark={input.hasDarkBackground} now={Date.now()} />);
  const dir = c.strings['LOCALE_DIRECTION'] === 'rtl' ? 'rtl' : 'ltr';
  const lang = input.locale.split('_')[0];
  const css = `${STYLES.replace(':host{display:block}', 'body{margin:0}')}\n${input.customCSS.replace(/<\//g, '<\\/')}`;
  return `<!doctype html><html lang="${lang}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(c.t('COMMENTS_TITLE'))}</title><style>${css}</style></head><body><main>${body}</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export { renderInline } from './render-inline.js';
