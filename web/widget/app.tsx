/**
 * The widget app (`widget-app.min.js`), fetched by the loader. It renders into a shadow root on
 * the host element: the host page's CSS cannot restyle the widget, the widget's cannot leak
 * out, and unlike an iframe it needs no second document, no height messaging, and its
 * requests and storage are the host page's own (see docs/widget.md).
 */
import { render } from 'preact';
import { STYLES } from '../shared/styles.js';
import type { AppModule, WidgetConfig, WidgetHandle } from '../shared/types.js';
import { WidgetView } from '../shared/components/widget-view.js';
import { WidgetController } from './controller.js';
import { INLINE_FRESH_MS, takeInline } from './inline.js';
import { defaultUrlId, sessionStore } from './page-identity.js';

/** How often relative dates are refreshed and the element's presence in the page checked. */
const TICK_MS = 30_000;

function mount(element: HTMLElement, config: WidgetConfig, origin: string): WidgetHandle {
  // Server-rendered markup already in the element (web/widget/inline.ts) is taken over in place.
  const inline = takeInline(element.shadowRoot, config, config.urlId || defaultUrlId());
  const shadow = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
  let style: HTMLStyleElement, custom: HTMLStyleElement, root: HTMLElement;
  if (inline) ({ style, custom, root } = inline);
  else {
    shadow.innerHTML = '';
    style = document.createElement('style');
    custom = document.createElement('style');
    root = document.createElement('div');
    shadow.append(style, custom, root);
  }
  style.textContent = STYLES;
  const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined;
  let destroyed = false;
  let scheduled = false;
  const draw = () => {
    scheduled = false;
    if (destroyed) return;
    custom.textContent = typeof controller.config.customCSS === 'string' ? controller.config.customCSS : '';
    const dark = typeof controller.config.hasDarkBackground === 'boolean' ? controller.config.hasDarkBackground : Boolean(media?.matches);
    render(<WidgetView c={controller} dark={dark} now={Date.now()} />, root);
    controller.config.onRender?.();
  };
  const changed = () => {
    if (scheduled || destroyed) return;
    scheduled = true;
    queueMicrotask(draw);
  };
  const controller = new WidgetController(
    inline ? { ...config, locale: config.locale ?? inline.thread.locale, defaultSortDirection: config.defaultSortDirection ?? inline.thread.direction } : { ...config },
    origin,
    changed,
  );
  media?.addEventListener?.('change', changed);
  const tick = setInterval(() => {
    // A wrapper that removes the element without destroy() must not leave a socket open.
    if (!element.isConnected) handle.destroy();
    else changed();
  }, TICK_MS);
  const handle: WidgetHandle = {
    destroy() {
      if (destroyed) return;
      destroyed = true;
      clearInterval(tick);
      media?.removeEventListener?.('change', changed);
      controller.destroy();
      render(null, root);
      shadow.innerHTML = '';
    },
    update(next) {
      // Wrappers may pass the same object back mutated: read it afresh.
      const before = controller.config;
      controller.config = { ...before, ...next };
      if (next.urlId !== undefined && next.urlId !== before.urlId) void controller.load(true);
      changed();
    },
    updateUser(sso) {
      controller.config = { ...controller.config, sso: sso ?? undefined };
      void controller.load(true);
    },
    openProfile(ctx) {
      controller.config.onOpenProfile?.(ctx);
    },
  };
  if (inline) {
    const { thread } = inline;
    // The markup was read without identity: a reader with one (or markup too old for the
    // live catch-up) gets the thread read again, applied over what is shown.
    const readAgain = Date.now() - thread.renderedAt > INLINE_FRESH_MS || controller.sso !== undefined || sessionStore.get(controller.tenantId) !== undefined;
    const answer = readAgain ? { ...thread.answer, urlIdWS: undefined } : thread.answer;
    void controller.startFrom(thread.strings, answer, thread.renderedAt, readAgain);
  }
  draw();
  if (!inline) void controller.start();
  return handle;
}

const app: AppModule = { mount };
(window as unknown as { FastCommentsApp: AppModule }).FastCommentsApp = app;
