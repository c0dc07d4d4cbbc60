/**
 * The thread the tenant's page already holds (`GET /ssr/comments/inline`, put inside the widget's
 * element by the tenant's server): a declarative shadow root with the widget's own markup and
 * the state of its first read. The app takes that markup over in place (Preact renders over
 * the existing nodes, reusing them) instead of clearing it and reading the thread again.
 */
import type { SortDirection, WidgetConfig } from '../shared/types.js';

/** The state `render-inline.tsx` writes beside the markup. */
export interface InlineThread {
  readonly v: number;
  readonly tenantId: string;
  readonly urlId: string;
  readonly locale: string;
  readonly direction: SortDirection;
  /** The server's clock at the read: live catch-up starts there. */
  readonly renderedAt: number;
  readonly strings: Record<string, string>;
  readonly answer: Record<string, any>;
}

/** The parts of the shadow root the app renders into, found in the inline markup. */
export interface InlineParts {
  readonly style: HTMLStyleElement;
  readonly custom: HTMLStyleElement;
  readonly root: HTMLElement;
  readonly thread: InlineThread;
}

/** The shape this app reads (render-inline.tsx `INLINE_VERSION`). */
const VERSION = 1;

/**
 * Markup older than this is still shown and taken over, but the thread is read again: the
 * event log's catch-up is meant for short gaps, not for a page cached for hours.
 */
export const INLINE_FRESH_MS = 10 * 60_000;

/**
 * The inline thread in `shadow`, when it is the one this embed asks for (same tenant and page,
 * and the embed sets no other language, order or permalink); its state element is removed.
 * Undefined otherwise, and the app then renders from scratch.
 */
export function takeInline(shadow: ShadowRoot | null, config: WidgetConfig, urlId: string): InlineParts | undefined {
  if (!shadow) return undefined;
  // The shadow root's own children only (a comment's HTML could hold look-alikes deeper down).
  const part = <T extends Element>(tag: string, name: string) => [...shadow.children].find((el) => el.localName === tag && el.getAttribute('data-fc') === name) as T | undefined;
  const style = part<HTMLStyleElement>('style', 'styles');
  const custom = part<HTMLStyleElement>('style', 'custom');
  const root = part<HTMLElement>('div', 'root');
  const data = part<HTMLScriptElement>('script', 'state');
  if (!style || !custom || !root || !data) return undefined;
  data.remove();
  let thread: InlineThread;
  try {
    thread = JSON.parse(data.textContent ?? '') as InlineThread;
  } catch {
    return undefined;
  }
  if (thread?.v !== VERSION || !Array.isArray(thread.answer?.['comments'])) return undefined;
  const matches =
    thread.tenantId === config.tenantId &&
    thread.urlId === urlId &&
    (config.locale === undefined || config.locale === thread.locale) &&
    (config.defaultSortDirection === undefined || config.defaultSortDirection === thread.direction) &&
    config['jumpToId'] === undefined;
  return matches ? { style, custom, root, thread } : undefined;
}
