/**
 * The thread for inlining in the tenant's own page (`GET /ssr/comments/inline`): the markup the
 * script widget itself renders for a reader without identity, inside a declarative shadow root
 * (`<template shadowrootmode="open">`), so the browser shows it, isolated from the page's CSS,
 * before any script runs, and the state the widget needs to take it over in place
 * (web/widget/inline.ts) without reading the thread again.
 */
import { renderToString } from 'preact-render-to-string';
import { FALLBACK } from '../shared/strings.js';
import { STYLES } from '../shared/styles.js';
import type { SortDirection, WidgetComment } from '../shared/types.js';
import { WidgetView } from '../shared/components/widget-view.js';
import { WidgetController } from '../widget/controller.js';

/** Version of the inline state's shape, checked by the widget before it adopts the markup. */
export const INLINE_VERSION = 1;

/** What the route hands over: an anonymous first read (with its configuration) and the strings. */
export interface InlineInput {
  tenantId: string;
  urlId: string;
  locale: string;
  direction: SortDirection;
  /** Every string component the widget reads, by component name. */
  strings: Record<string, string>;
  answer: Record<string, unknown> & { comments: WidgetComment[] };
  hasDarkBackground: boolean;
  customCSS: string;
  /** The server's clock when the read was made: the widget's live catch-up starts there. */
  renderedAt: number;
}

/** Text safe inside a `<script>` or `<style>` element of an HTML document. */
function inertText(text: string): string {
  return text.replace(/</g, '\\u003c');
}

/**
 * The dark theme's colours under `prefers-color-scheme: dark`, for markup whose theme the server
 * leaves to the reader's system (as the widget does): the markup shows in the theme the widget
 * will render, and the app, taking over, replaces these styles in the same task as it sets
 * its own class, so the theme never flips.
 */
function systemTheme(): string {
  const dark = /\.fc\.dark\{([^}]*)\}/.exec(STYLES)?.[1];
  return dark ? `@media (prefers-color-scheme: dark){.fc{${dark}}}` : '';
}

/** The fragment to put inside the widget's element. */
export function renderInline(input: InlineInput): string {
  const c = new WidgetController({ tenantId: input.tenantId, urlId: input.urlId, locale: input.locale, defaultSortDirection: input.direction }, 'http://localhost', () => {});
  c.strings = { ...FALLBACK, ...input.strings };
  for (const comment of input.answer.comments) {
    if (!c.comments.has(comment._id)) c.order.push(comment._id);
    c.comments.set(comment._id, comment);
  }
  c.hasMore = Boolean(input.answer['hasMore']);
  c.page = Number(input.answer['pageNumber'] ?? 0);
  c.commentCount = Number(input.answer['commentCount'] ?? 0);
  c.isClosed = Boolean(input.answer['isClosed']);
  c.loading = false;
  const custom = input.answer['customConfig'] as Record<string, unknown> | undefined;
  if (custom) c.applyServerConfig(custom);
  const markup = renderToString(<WidgetView c={c} dark={input.hasDarkBackground} now={input.renderedAt} />);
  const state = {
    v: INLINE_VERSION,
    tenantId: input.tenantId,
    urlId: input.urlId,
    locale: input.locale,
    direction: input.direction,
    renderedAt: input.renderedAt,
    strings: input.strings,
    answer: { ...input.answer, user: null },
  };
  const css = input.customCSS.replace(/<\//g, '<\\/');
  const themed = typeof custom?.['hasDarkBackground'] === 'boolean' ? STYLES : STYLES + systemTheme();
  return (
    '<template shadowrootmode="open">' +
    `<style data-fc="styles">${themed}</style><style data-fc="custom">${css}</style>` +
    `<div data-fc="root">${markup}</div>` +
    `<script type="application/json" data-fc="state">${inertText(JSON.stringify(state))}</script>` +
    '</template>'
  );
}
