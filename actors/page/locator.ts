/**
 * Which page holds a comment, a vote or a page record, given only its global id.
 *
 * Ids are looked up in storage (the durable record names its tenant and urlId) and remembered;
 * the page actor asked is the authority: if the id is not (or no longer) there, because the
 * comment moved or was deleted, it answers `NotOnThisPage` and the lookup is made again from
 * storage. A page answers that only once its own writes are durable, so the second lookup sees
 * where the comment went. An id of another tenant is, for this tenant, no id at all.
 */
import { LRUCache } from 'lru-cache';
import type { StoreReader } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import type { ApiError } from '../../engine/errors.js';
import type { Doc } from '../../storage/store.js';
import { COMMENTS } from './comment-doc.js';
import { PAGES } from './page-doc.js';
import { NotOnThisPage, PageKind, pageActorId, type PageProtocol } from './protocol.js';
import { VOTES } from './vote-doc.js';

const COLLECTION_OF = { comment: COMMENTS, vote: VOTES, page: PAGES } as const;
/** What can be located by global id: a comment, a vote, a page record. */
export type LocatedKind = keyof typeof COLLECTION_OF;

/** Lookups made before giving up: the remembered page, then storage, then storage again. */
const ATTEMPTS = 3;

type Located = Doc & { tenantId?: unknown; urlId?: unknown };

/** Routes messages about an id to the page that holds it. One per actor system. */
export class PageLocator {
  readonly #store: StoreReader;
  readonly #system: ActorSystem;
  readonly #cache = new LRUCache<string, string>({ max: 200_000 });

  constructor(system: ActorSystem) {
    this.#system = system;
    this.#store = system.store;
  }

  /** The urlId of the page holding `id` per storage, or undefined (unknown, or another tenant's). */
  async lookup(kind: LocatedKind, tenantId: string, id: string): Promise<string | undefined> {
    const doc = await this.#store.get<Located>(COLLECTION_OF[kind], id);
    if (doc === undefined || doc.tenantId !== tenantId || typeof doc.urlId !== 'string') return undefined;
    this.#cache.set(`${kind}:${tenantId}:${id}`, doc.urlId);
    return doc.urlId;
  }

  /**
   * Where `id` was last seen (remembered, else from storage); the page asked still confirms it.
   * A remembered place is answered at once, not as a promise.
   */
  urlIdOf(kind: LocatedKind, tenantId: string, id: string): string | undefined | Promise<string | undefined> {
    return this.#cache.get(`${kind}:${tenantId}:${id}`) ?? this.lookup(kind, tenantId, id);
  }

  /** Sends a message to the page holding `id`; `missing` makes the error for an unknown id. */
  async ask<K extends keyof PageProtocol & string>(
    kind: LocatedKind,
    tenantId: string,
    id: string,
    type: K,
    payload: PageProtocol[K]['in'],
    missing: () => ApiError,
  ): Promise<PageProtocol[K]['out']> {
    const cacheKey = `${kind}:${tenantId}:${id}`;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const urlId = (attempt === 0 ? this.#cache.get(cacheKey) : undefined) ?? (await this.lookup(kind, tenantId, id));
      if (urlId === undefined) throw missing();
      try {
        return await this.#system.ask(PageKind, pageActorId(tenantId, urlId), type, payload);
      } catch (err) {
        if (!(err instanceof NotOnThisPage)) throw err;
        this.#cache.delete(cacheKey);
      }
    }
    throw missing();
  }

  /** Forgets where `id` was seen: the page there said it is not (or no longer) there. */
  forget(kind: LocatedKind, tenantId: string, id: string): void {
    this.#cache.delete(`${kind}:${tenantId}:${id}`);
  }

  /** Remembers where a new id lives (saves a storage read on its first use). */
  remember(kind: LocatedKind, tenantId: string, id: string, urlId: string): void {
    this.#cache.set(`${kind}:${tenantId}:${id}`, urlId);
  }
}

const locators = new WeakMap<ActorSystem, PageLocator>();

/** The locator of an actor system. */
export function pageLocator(system: ActorSystem): PageLocator {
  let locator = locators.get(system);
  if (locator === undefined) {
    locator = new PageLocator(system);
    locators.set(system, locator);
  }
  return locator;
}
