/**
 * Holds a page actor's messages until its whole page is loaded (page-head.ts answers a few
 * reads earlier): each handler but the named ones first awaits the load, so every write and
 * every read lands on the whole state, in the order the messages came.
 */
import type { Handlers, Protocol } from '../../engine/actor.js';

/** `handlers`, each (but those in `open`) run once `loaded()` resolves (at once when it gives undefined). */
export function gated<P extends Protocol>(loaded: () => Promise<void> | undefined, open: ReadonlySet<keyof P>, handlers: Handlers<P>): Handlers<P> {
  const out = {} as Record<keyof P, (payload: unknown) => unknown>;
  for (const name of Object.keys(handlers) as (keyof P)[]) {
    const handler = handlers[name] as (payload: unknown) => unknown;
    out[name] = open.has(name)
      ? handler
      : (payload) => {
          const wait = loaded();
          return wait === undefined ? handler(payload) : wait.then(() => handler(payload));
        };
  }
  return out as Handlers<P>;
}
