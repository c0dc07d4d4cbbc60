/**
 * Badges as the server starts them (docs/badges.md): the catalog and user actors, the
 * listener that hands each page's newly durable progress events to the users' badge actors,
 * and the sweep that finds events whose announcement was lost (a crash between the page's
 * commit and its announcement, or a node that stopped).
 */
import type { ActorSystem } from '../../engine/actor-system.js';
import { clock } from '../../engine/clock.js';
import type { EventBus } from '../../engine/event-bus.js';
import { log } from '../../engine/log.js';
import type { Filter } from '../../storage/store.js';
import { BADGE_COLLECTIONS, type BadgeEventDoc, badgeUserActorId } from './badge-model.js';
import { BadgeUserActor } from './badge-user-actor.js';
import { BadgeCatalogActor } from './catalog-actor.js';
import { BadgeCatalogKind, BadgeUserKind } from './protocol.js';

const TOPIC_PREFIX = 'badge-events:';
/** How often owed events are looked for. */
const SWEEP_EVERY_MS = 60_000;
/** Events younger than this are left to their announcement. */
const SWEEP_AGE_MS = 30_000;
/** Events handled per sweep round. */
const SWEEP_BATCH = 1000;

/** The running badge service. */
export interface BadgeService {
  /** Sweeps now and every minute (once the server serves). */
  start(): void;
  close(): void;
  /** Applies every owed event older than `ageMs` now; resolves with how many were handed over. */
  sweep(ageMs?: number): Promise<number>;
}

/** Hands events to their users' actors, one message per user. */
function deliver(system: ActorSystem, events: readonly BadgeEventDoc[], checkStored: boolean): Promise<unknown>[] {
  const byUser = new Map<string, BadgeEventDoc[]>();
  for (const event of events) {
    const id = badgeUserActorId(event.tenantId, event.userId);
    const list = byUser.get(id);
    if (list === undefined) byUser.set(id, [event]);
    else list.push(event);
  }
  return [...byUser].map(([id, list]) =>
    system.ask(BadgeUserKind, id, 'apply', { events: list, checkStored }).catch((err: unknown) => log.warn('badge-progress-failed', { id, events: list.length, err })),
  );
}

/** Registers the badge actors and listens for the progress events page actors make durable. */
export function createBadges(system: ActorSystem, bus: EventBus): BadgeService {
  system.register(BadgeCatalogKind, (ctx) => new BadgeCatalogActor(ctx));
  system.register(BadgeUserKind, (ctx) => new BadgeUserActor(ctx));
  let announced: BadgeEventDoc[] | undefined;
  const flush = () => {
    const batch = announced!;
    announced = undefined;
    void deliver(system, batch, false);
  };
  // Events are handled on the node whose page actor made them; other nodes hear them as remote.
  const unlisten = bus.listen((topic, event, remote) => {
    if (remote || !topic.startsWith(TOPIC_PREFIX) || !Array.isArray(event)) return;
    if (announced === undefined) {
      announced = [];
      queueMicrotask(flush);
    }
    announced.push(...(event as BadgeEventDoc[]));
  });
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const sweep = async (ageMs = SWEEP_AGE_MS): Promise<number> => {
    let handed = 0;
    let after = '';
    while (!closed) {
      // Ids sort by creation time: those made before the cut-off are the events older than `ageMs`.
      const cutoff = Math.floor((clock.now() - ageMs) / 1000).toString(16).padStart(8, '0');
      const filter: Filter = after === '' ? { _id: { $lt: cutoff } } : { _id: { $lt: cutoff, $gt: after } };
      const events = await system.store.find<BadgeEventDoc>(BADGE_COLLECTIONS.events, filter, { sort: [['_id', 1]], limit: SWEEP_BATCH });
      if (events.length === 0) break;
      await Promise.all(deliver(system, events, true));
      handed += events.length;
      after = events.at(-1)!._id;
      if (events.length < SWEEP_BATCH) break;
    }
    return handed;
  };
  const run = () => void sweep().catch((err: unknown) => log.warn('badge-sweep-failed', { err }));
  return {
    start() {
      run();
      timer = setInterval(run, SWEEP_EVERY_MS);
      timer.unref();
    },
    close() {
      closed = true;
      clearInterval(timer);
      unlisten();
    },
    sweep,
  };
}
