/** Things the widget derives from the host page: its thread key, session storage, client ids. */

/** Query parameters that only track visitors and never name a different page. */
const TRACKING = /^(utm_\w+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_ga|ref)$/i;

/** The page URL without tracking parameters (a `#hash` stays), the default `urlId`. */
export function defaultUrlId(): string {
  const url = new URL(location.href);
  for (const key of [...url.searchParams.keys()]) if (TRACKING.test(key)) url.searchParams.delete(key);
  return url.toString();
}

/** A fresh client id for `broadcastId`. */
export function newBroadcastId(): string {
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
}

/**
 * The anonymous session id, kept in the host page's storage: browsers that block third-party
 * cookies drop the API's cookie, and the API takes `sessionId` in its place.
 */
export const sessionStore = {
  get(tenantId: string): string | undefined {
    try {
      return localStorage.getItem(`fc-session:${tenantId}`) ?? undefined;
    } catch {
      return undefined;
    }
  },
  set(tenantId: string, id: string): void {
    try {
      localStorage.setItem(`fc-session:${tenantId}`, id);
    } catch {
      // Storage refused (private mode): the session lasts as long as the page.
    }
  },
};
