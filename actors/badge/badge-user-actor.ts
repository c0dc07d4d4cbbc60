import { Actor, type Handlers } from '../../engine/actor.js';
import { clock, isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { COMMENTS, type CommentDoc } from '../page/comment-doc.js';
import { PageKind, pageActorId } from '../page/protocol.js';
import { UserKind, userActorId } from '../user/protocol.js';
import {
  awardOf,
  BADGE_COLLECTIONS as C,
  type BadgeEventDoc,
  commentBadgeInfo,
  earns,
  type ProgressDoc,
  refreshed,
  type TenantBadgeDoc,
  type UserBadgeDoc,
} from './badge-model.js';
import type { BadgeConfigInput, BadgeUserProtocol } from './protocol.js';
import { catalogOf } from './catalog-cache.js';

/** Event ids remembered as applied, so an event delivered twice (announced and swept) counts once. */
const APPLIED_REMEMBERED = 20_000;
/** Comments looked at to find the pages that show a user's badges. */
const PAGES_SCAN_LIMIT = 10_000;

/**
 * One user's badges and progress (`badge-user:<tenantId>:<userId>`). Progress events arrive
 * from page actors (announced once durable, or found by the sweep); each is applied once, and
 * deleted from the outbox in the same batch that stores the progress it makes and the badges it
 * earns. Messages run one at a time, so however many votes arrive at once, a threshold is
 * crossed once and its badge is awarded once (storage also refuses a second copy of a badge).
 * When the badges shown on comments change, the pages of the user's comments are told, once
 * the change is durable.
 */
export class BadgeUserActor extends Actor<BadgeUserProtocol> {
  #tenantId = '';
  #userId = '';
  #progress: ProgressDoc | null = null;
  /** Held badges by catalog badge id. */
  readonly #held = new Map<string, UserBadgeDoc>();
  readonly #applied = new Set<string>();
  #lastConfig = '';

  override async onStart(): Promise<void> {
    const colon = this.id.indexOf(':');
    this.#tenantId = this.id.slice(0, colon);
    this.#userId = this.id.slice(colon + 1);
    const filter = { tenantId: this.#tenantId, userId: this.#userId };
    const [progress, badges] = await Promise.all([this.store.find<ProgressDoc>(C.progress, filter, { limit: 1 }), this.store.find<UserBadgeDoc>(C.userBadges, filter)]);
    this.#progress = progress[0] ?? null;
    this.#held.clear();
    for (const badge of badges) this.#held.set(badge.badgeId, badge);
  }

  readonly handlers: Handlers<BadgeUserProtocol> = {
    apply: async ({ events, checkStored }) => {
      let fresh = events.filter((e) => e.tenantId === this.#tenantId && e.userId === this.#userId && !this.#applied.has(e._id));
      if (checkStored && fresh.length > 0) {
        const stored = await Promise.all(fresh.map((e) => this.store.get<BadgeEventDoc>(C.events, e._id)));
        fresh = fresh.filter((_, i) => stored[i] !== undefined);
      }
      if (fresh.length === 0) {
        this.allowUnconfirmed();
        return null;
      }
      const now = clock.now();
      const progress: ProgressDoc = this.#progress === null ? this.#newProgress(fresh[0]!, now) : { ...this.#progress, progress: { ...this.#progress.progress } };
      for (const event of fresh) {
        const key = String(event.type);
        progress.progress[key] = Math.max(0, (progress.progress[key] ?? 0) + event.delta);
        if (progress.firstCommentId === '' && event.type === 0 && event.delta > 0) {
          progress.firstCommentId = event.commentId;
          progress.firstCommentDate = isoTime(event.at);
        }
        this.remove(C.events, event._id);
        this.#remember(event._id);
      }
      this.#progress = progress;
      this.put(C.progress, progress);
      const catalog = await this.#catalog();
      let changed = false;
      for (const badge of catalog) {
        // Page-scoped badges are given by single sign-on or the API, never by progress.
        if (badge.urlId !== null || this.#held.has(badge._id) || !earns(badge, progress, now)) continue;
        this.#give(badge, true, now);
        changed = true;
      }
      if (changed) await this.#showOnComments();
      return null;
    },

    displayed: ({ urlId }) => {
      this.allowUnconfirmed();
      return this.#displayed(urlId);
    },

    progress: () => {
      this.allowUnconfirmed();
      return this.#progress;
    },

    award: async ({ badgeId, displayedOnComments }) => {
      // Read from storage: a badge made a moment ago (by the command line, or another node) must be found.
      const stored = await this.store.get<TenantBadgeDoc>(C.catalog, badgeId);
      const badge = stored?.tenantId === this.#tenantId ? stored : undefined;
      if (badge === undefined) throw new ApiError('badge-not-found', `The tenant's catalog has no badge ${badgeId}.`);
      if (!badge.enabled) throw new ApiError('badge-disabled');
      if (this.#held.has(badgeId)) throw new ApiError('badge-already-awarded');
      if (!(await this.#knownUser())) throw new ApiError('badge-user-unknown');
      const doc = this.#give(badge, displayedOnComments, clock.now());
      if (displayedOnComments) await this.#showOnComments();
      return doc;
    },

    setDisplayed: async ({ id, displayedOnComments }) => {
      const held = this.#byId(id);
      if (held.displayedOnComments === displayedOnComments) return null;
      this.#store({ ...held, displayedOnComments });
      await this.#showOnComments();
      return null;
    },

    remove: async ({ id }) => {
      const held = this.#byId(id);
      this.remove(C.userBadges, held._id);
      this.#held.delete(held.badgeId);
      if (held.displayedOnComments) await this.#showOnComments();
      return null;
    },

    erase: async () => {
      const events = await this.store.find<BadgeEventDoc>(C.events, { tenantId: this.#tenantId, userId: this.#userId });
      for (const event of events) this.remove(C.events, event._id);
      for (const held of this.#held.values()) this.remove(C.userBadges, held._id);
      if (this.#progress !== null) this.remove(C.progress, this.#progress._id);
      this.#held.clear();
      this.#progress = null;
      this.#lastConfig = '';
      return null;
    },

    applyConfig: async (config) => {
      // Every signed request carries it: a payload seen already (and not asking to refresh) changes nothing.
      const key = JSON.stringify(config);
      if (key === this.#lastConfig && !config.update) {
        this.allowUnconfirmed();
        return null;
      }
      this.#lastConfig = key;
      if (await this.#applyConfig(config)) await this.#showOnComments();
      return null;
    },
  };

  #newProgress(first: BadgeEventDoc, nowMs: number): ProgressDoc {
    const isComment = first.type === 0 && first.delta > 0;
    return {
      _id: newId(nowMs),
      tenantId: this.#tenantId,
      userId: this.#userId,
      firstCommentId: isComment ? first.commentId : '',
      firstCommentDate: isoTime(first.at),
      progress: {},
    };
  }

  #remember(eventId: string): void {
    this.#applied.add(eventId);
    if (this.#applied.size > APPLIED_REMEMBERED) this.#applied.delete(this.#applied.values().next().value!);
  }

  #catalog(): Promise<readonly TenantBadgeDoc[]> {
    return catalogOf(this.store, this.#tenantId);
  }

  #give(badge: TenantBadgeDoc, displayedOnComments: boolean, nowMs: number, urlId: string | null = badge.urlId): UserBadgeDoc {
    const doc = { ...awardOf(newId(nowMs), badge, this.#userId, isoTime(nowMs), displayedOnComments), urlId };
    this.insert(C.userBadges, doc);
    this.#held.set(badge._id, doc);
    return doc;
  }

  #store(doc: UserBadgeDoc): void {
    this.put(C.userBadges, doc);
    this.#held.set(doc.badgeId, doc);
  }

  #byId(id: string): UserBadgeDoc {
    for (const held of this.#held.values()) if (held._id === id) return held;
    throw new ApiError('not-found', `The user holds no badge ${id}.`);
  }

  /** A user of the tenant, or someone who commented on its site. */
  async #knownUser(): Promise<boolean> {
    if ((await this.system.ask(UserKind, userActorId(this.#tenantId, this.#userId), 'get', null)) !== null) return true;
    return (await this.store.find(COMMENTS, { tenantId: this.#tenantId, userId: this.#userId }, { limit: 1 })).length > 0;
  }

  #displayed(urlId: string | null): Record<string, unknown>[] {
    const out: UserBadgeDoc[] = [];
    for (const held of this.#held.values()) if (held.displayedOnComments && (held.urlId === null || held.urlId === urlId)) out.push(held);
    out.sort((a, b) => a.order - b.order || (a._id < b._id ? -1 : 1));
    return out.map(commentBadgeInfo);
  }

  /**
   * `badgeConfig`: awards the named badges of the catalog (page ones for the page it came
   * from), with `override` hides the others of the same scope from comments, and with
   * `update` refreshes held ones from the catalog. Answers whether what comments show changed.
   */
  async #applyConfig(config: BadgeConfigInput): Promise<boolean> {
    const catalog = new Map((await this.#catalog()).map((b) => [b._id, b]));
    const now = clock.now();
    let changed = false;
    const scopes: [readonly string[], string | null][] = [[config.badgeIds, null]];
    if (config.urlId !== null) scopes.push([config.pageBadgeIds, config.urlId]);
    for (const [ids, urlId] of scopes) {
      const named = new Set(ids);
      for (const id of named) {
        const badge = catalog.get(id);
        if (badge === undefined || !badge.enabled) continue;
        const held = this.#held.get(id);
        if (held === undefined) {
          this.#give(badge, true, now, urlId);
          changed = true;
        } else if (config.update || (config.override && !held.displayedOnComments)) {
          this.#store({ ...(config.update ? refreshed(held, badge) : held), displayedOnComments: true });
          changed = true;
        }
      }
      if (!config.override) continue;
      for (const held of [...this.#held.values()]) {
        if (held.urlId !== urlId || named.has(held.badgeId) || !held.displayedOnComments) continue;
        this.#store({ ...held, displayedOnComments: false });
        changed = true;
      }
    }
    return changed;
  }

  /** Once the change is durable, has every page of the user's comments show the badges. */
  async #showOnComments(): Promise<void> {
    await this.commitNow([]);
    const comments = await this.store.find<CommentDoc>(COMMENTS, { tenantId: this.#tenantId, userId: this.#userId }, { limit: PAGES_SCAN_LIMIT });
    const pages = new Set(comments.map((c) => c.urlId));
    for (const urlId of pages) {
      this.system.tell(PageKind, pageActorId(this.#tenantId, urlId), 'setUserBadges', { userId: this.#userId, badges: this.#displayed(urlId) });
    }
  }
}
