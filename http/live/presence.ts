/**
 * Who is on a page: the readers subscribed to its live channel (`/sub`), across every node.
 *
 * A reader is one presence id however many sockets it holds: a signed-on user is its user id
 * (the `userId` of its comments, so online dots light), an anonymous reader `anon:<digest>` of
 * its session cookie when the socket carries one, else of the socket. Anonymous ids never
 * equal a comment's `anonUserId`: who wrote an anonymous comment is not told by being online.
 *
 * Each node counts its own sockets per page. A reader joining or leaving the page as a whole
 * (its first socket anywhere opens, its last closes) is published on the page's channel as a
 * `p-u` frame (`uj` joined, `ul` left, `sc` readers on the page), gathered per page over
 * `PRESENCE_LIMITS.frameWindowMs` so a crowd arriving at once makes a few frames, not one per
 * reader. In cluster mode each node also sends its changes, and every `snapshotMs` its whole
 * list, on the tenant's server subject, which every node follows; a node's list not renewed
 * within `staleMs` (the node died) is dropped. Each node frames the changes it sees to its own
 * sockets only (never relayed), so every socket hears each change once, whichever node it
 * happened on.
 */
import { createHash, randomBytes } from 'node:crypto';
import { LIVE_EVENT_TYPES, pageTopic, tenantTopic } from '../../actors/live/live-events.js';
import { clock } from '../../engine/clock.js';
import type { EventBus } from '../../engine/event-bus.js';

/** Timings of presence, documented in docs/public-reader.md. */
export const PRESENCE_LIMITS = {
  /**
   * Joins and leaves of a page gathered into one `p-u` frame: this long per 100 readers on the
   * page (at least once), so a crowd of 10,000 gets a frame every `maxFrameWindowMs`, not one
   * per arrival.
   */
  frameWindowMs: 250,
  maxFrameWindowMs: 10_000,
  /** Cluster mode: how often a node sends its whole list of readers per page. */
  snapshotMs: 20_000,
  /** Cluster mode: a node's list not renewed for this long is dropped. */
  staleMs: 65_000,
  /** Ids named in one `p-u` frame's `uj` or `ul`; beyond, the frame's `sc` counts them without naming them. */
  maxIdsPerFrame: 50,
} as const;

/** The server event carrying a node's presence on the tenant subject (never sent to widgets). */
interface PresenceMessage {
  readonly type: 'presence';
  readonly node: string;
  readonly urlId: string;
  /** A whole list (snapshot) or changes. */
  readonly all?: readonly string[];
  readonly joined?: readonly string[];
  readonly left?: readonly string[];
}

/** The presence id of an anonymous reader: a digest of its session, never the session itself. */
export function anonPresenceId(session: string | undefined): string {
  const basis = session ?? randomBytes(12).toString('base64url');
  return `anon:${createHash('sha256').update(`presence\u0000${basis}`).digest('base64url').slice(0, 16)}`;
}

/** Whether a presence id is an anonymous reader's. */
export function isAnonPresence(id: string): boolean {
  return id.startsWith('anon:');
}

interface PageState {
  readonly tenantId: string;
  readonly urlId: string;
  /** This node's readers: presence id → sockets. */
  readonly local: Map<string, number>;
  /** Other nodes' readers, and when each list was last renewed. */
  readonly remote: Map<string, { ids: Set<string>; at: number }>;
  joined: Set<string>;
  left: Set<string>;
  timer: NodeJS.Timeout | undefined;
}

/** Presence of every page with readers on this node or, in cluster mode, on any node. */
export class Presence {
  readonly #bus: EventBus;
  readonly #node: string;
  readonly #clustered: boolean;
  readonly #pages = new Map<string, PageState>();
  #snapshots: NodeJS.Timeout | undefined;

  /** @param clustered whether other nodes share the pages (presence travels over the bus) */
  constructor(bus: EventBus, clustered: boolean) {
    this.#bus = bus;
    this.#clustered = clustered;
    this.#node = randomBytes(8).toString('base64url');
    if (clustered) {
      this.#snapshots = setInterval(() => this.#sendSnapshots(), PRESENCE_LIMITS.snapshotMs);
      this.#snapshots.unref();
    }
  }

  stop(): void {
    clearInterval(this.#snapshots);
    for (const page of this.#pages.values()) clearTimeout(page.timer);
  }

  /** A socket of reader `id` opened on the page. */
  join(tenantId: string, urlId: string, id: string): void {
    const page = this.#page(tenantId, urlId);
    const sockets = page.local.get(id) ?? 0;
    if (sockets > 0) {
      page.local.set(id, sockets + 1);
      return;
    }
    const wasOn = this.#isOnPage(page, id);
    page.local.set(id, 1);
    this.#send(page, { joined: [id] });
    if (!wasOn) this.#note(page, id, true);
  }

  /** A socket of reader `id` on the page closed. */
  leave(tenantId: string, urlId: string, id: string): void {
    const page = this.#pages.get(pageTopic(tenantId, urlId));
    const sockets = page?.local.get(id);
    if (page === undefined || sockets === undefined) return;
    if (sockets > 1) {
      page.local.set(id, sockets - 1);
      return;
    }
    page.local.delete(id);
    this.#send(page, { left: [id] });
    if (!this.#isOnPage(page, id)) this.#note(page, id, false);
    this.#forgetIfEmpty(page);
  }

  /** Readers on the page now (every node): named ids and how many anonymous readers. */
  readers(tenantId: string, urlId: string): { named: string[]; anonCount: number; total: number } {
    const ids = this.#ids(this.#pages.get(pageTopic(tenantId, urlId)));
    const named: string[] = [];
    let anonCount = 0;
    for (const id of ids) {
      if (isAnonPresence(id)) anonCount++;
      else named.push(id);
    }
    return { named, anonCount, total: ids.size };
  }

  /** Whether reader `id` is on the page. */
  isOn(tenantId: string, urlId: string, id: string): boolean {
    const page = this.#pages.get(pageTopic(tenantId, urlId));
    return page !== undefined && this.#isOnPage(page, id);
  }

  /** The pages of a tenant with readers (on any node). */
  pagesOf(tenantId: string): string[] {
    const out: string[] = [];
    for (const page of this.#pages.values()) if (page.tenantId === tenantId && this.#ids(page).size > 0) out.push(page.urlId);
    return out;
  }

  /** The bus listener that hears other nodes' presence (cluster mode). */
  readonly onBusEvent = (topic: string, event: unknown, remote: boolean): void => {
    if (!remote || !topic.startsWith('tenant:')) return;
    const message = event as PresenceMessage | undefined;
    if (message?.type !== 'presence' || message.node === this.#node || typeof message.urlId !== 'string') return;
    const page = this.#page(topic.slice('tenant:'.length), message.urlId);
    const list = page.remote.get(message.node) ?? { ids: new Set<string>(), at: 0 };
    page.remote.set(message.node, list);
    list.at = clock.now();
    const next = new Set(message.all ?? list.ids);
    for (const id of message.joined ?? []) next.add(id);
    for (const id of message.left ?? []) next.delete(id);
    const before = list.ids;
    for (const id of next) {
      if (before.has(id)) continue;
      const wasOn = this.#isOnPage(page, id);
      before.add(id);
      if (!wasOn) this.#note(page, id, true);
    }
    for (const id of [...before]) {
      if (next.has(id)) continue;
      before.delete(id);
      if (!this.#isOnPage(page, id)) this.#note(page, id, false);
    }
    if (list.ids.size === 0) page.remote.delete(message.node);
    this.#forgetIfEmpty(page);
  };

  #page(tenantId: string, urlId: string): PageState {
    const key = pageTopic(tenantId, urlId);
    let page = this.#pages.get(key);
    if (page === undefined) {
      page = { tenantId, urlId, local: new Map(), remote: new Map(), joined: new Set(), left: new Set(), timer: undefined };
      this.#pages.set(key, page);
    }
    return page;
  }

  /** Whether reader `id` is on the page on this node or another (lists gone stale are dropped on the way). */
  #isOnPage(page: PageState, id: string): boolean {
    if (page.local.has(id)) return true;
    const now = clock.now();
    for (const [node, list] of page.remote) {
      if (now - list.at > PRESENCE_LIMITS.staleMs) this.#dropNode(page, node);
      else if (list.ids.has(id)) return true;
    }
    return false;
  }

  /** Forgets a node's list gone stale (the node died): its readers found nowhere else leave. */
  #dropNode(page: PageState, node: string): void {
    const list = page.remote.get(node);
    if (list === undefined) return;
    page.remote.delete(node);
    for (const id of list.ids) if (!this.#isOnPage(page, id)) this.#note(page, id, false);
  }

  /** A reader joined (or left) the page as a whole: told in the page's next frame. */
  #note(page: PageState, id: string, joined: boolean): void {
    if (joined) {
      if (!page.left.delete(id)) page.joined.add(id);
    } else if (!page.joined.delete(id)) page.left.add(id);
    this.#schedule(page);
  }

  #ids(page: PageState | undefined): Set<string> {
    const ids = new Set<string>();
    if (page === undefined) return ids;
    for (const id of page.local.keys()) ids.add(id);
    const now = clock.now();
    for (const [node, list] of page.remote) {
      if (now - list.at > PRESENCE_LIMITS.staleMs) this.#dropNode(page, node);
      else for (const id of list.ids) ids.add(id);
    }
    return ids;
  }

  #send(page: PageState, change: { joined?: string[]; left?: string[] }): void {
    if (!this.#clustered) return;
    const message: PresenceMessage = { type: 'presence', node: this.#node, urlId: page.urlId, ...change };
    this.#bus.publish(tenantTopic(page.tenantId), message);
  }

  #sendSnapshots(): void {
    for (const page of [...this.#pages.values()]) {
      // Lists of nodes gone quiet are dropped even on pages nobody asks about.
      this.#ids(page);
      this.#forgetIfEmpty(page);
      if (page.local.size === 0) continue;
      const message: PresenceMessage = { type: 'presence', node: this.#node, urlId: page.urlId, all: [...page.local.keys()] };
      this.#bus.publish(tenantTopic(page.tenantId), message);
    }
  }

  #schedule(page: PageState): void {
    if (page.timer !== undefined) return;
    const readers = page.local.size + [...page.remote.values()].reduce((n, list) => n + list.ids.size, 0);
    const window = Math.min(PRESENCE_LIMITS.maxFrameWindowMs, PRESENCE_LIMITS.frameWindowMs * Math.max(1, Math.ceil(readers / 100)));
    page.timer = setTimeout(() => this.#frame(page), window);
    page.timer.unref();
  }

  /** Publishes the page's gathered joins and leaves as one `p-u` frame. */
  #frame(page: PageState): void {
    page.timer = undefined;
    const joined = [...page.joined].slice(0, PRESENCE_LIMITS.maxIdsPerFrame);
    const left = [...page.left].slice(0, PRESENCE_LIMITS.maxIdsPerFrame);
    page.joined = new Set();
    page.left = new Set();
    if (joined.length === 0 && left.length === 0) return;
    const sc = this.#ids(page).size;
    // Every node frames what it sees for its own sockets: sent as a remote event, it is not relayed.
    this.#bus.publish(pageTopic(page.tenantId, page.urlId), { type: LIVE_EVENT_TYPES.presenceUpdate, timestamp: clock.now(), uj: joined, ul: left, sc }, this.#clustered);
    this.#forgetIfEmpty(page);
  }

  #forgetIfEmpty(page: PageState): void {
    if (page.local.size > 0 || page.remote.size > 0 || page.timer !== undefined) return;
    this.#pages.delete(pageTopic(page.tenantId, page.urlId));
  }
}
