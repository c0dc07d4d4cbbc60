/**
 * The tiny loader: defines `window.FastCommentsUI` at once (framework wrappers need it before they
 * mount) and fetches the app only when the element comes near the viewport, so a page pays for
 * the widget only when a reader scrolls toward it.
 */
import type { AppModule, WidgetConfig, WidgetHandle } from '../shared/types.js';

/** How far below the viewport the app starts loading (so it is ready when the reader arrives). */
const PRELOAD_MARGIN = '800px';

/** The origin this script was served from: the default `apiHost` and `wsHost`. */
export const scriptOrigin: string = (() => {
  const script = document.currentScript as HTMLScriptElement | null;
  try {
    return script?.src ? new URL(script.src).origin : location.origin;
  } catch {
    return location.origin;
  }
})();

let appLoad: Promise<AppModule> | undefined;

function loadApp(): Promise<AppModule> {
  const host = window as unknown as { FastCommentsApp?: AppModule };
  appLoad ??= new Promise<AppModule>((resolve, reject) => {
    if (host.FastCommentsApp) return resolve(host.FastCommentsApp);
    const script = document.createElement('script');
    script.src = `${scriptOrigin}/js/widget-app.min.js`;
    script.async = true;
    script.onload = () => (host.FastCommentsApp ? resolve(host.FastCommentsApp) : reject(new Error('widget app missing')));
    script.onerror = () => {
      appLoad = undefined;
      reject(new Error('The comment widget could not be loaded.'));
    };
    document.head.appendChild(script);
  });
  return appLoad;
}

/** `FastCommentsUI(element, config)`: returns its handle synchronously; the app renders when near. */
export function FastCommentsUI(element: HTMLElement, config: WidgetConfig): WidgetHandle {
  let current = config;
  let instance: WidgetHandle | undefined;
  let destroyed = false;
  let observer: IntersectionObserver | undefined;
  const start = () => {
    observer?.disconnect();
    observer = undefined;
    loadApp().then(
      (app) => {
        if (!destroyed && !instance) instance = app.mount(element, current, scriptOrigin);
      },
      (err: Error) => {
        element.textContent = err.message;
      },
    );
  };
  if (typeof IntersectionObserver === 'function') {
    observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && start(), { rootMargin: PRELOAD_MARGIN });
    observer.observe(element);
  } else start();
  return {
    destroy() {
      if (destroyed) return;
      destroyed = true;
      observer?.disconnect();
      instance?.destroy();
      instance = undefined;
    },
    update(next) {
      current = next;
      instance?.update(next);
    },
    updateUser(sso) {
      current = { ...current, sso: sso ?? undefined };
      instance?.updateUser(sso);
    },
    openProfile(ctx) {
      instance?.openProfile(ctx);
    },
  };
}
