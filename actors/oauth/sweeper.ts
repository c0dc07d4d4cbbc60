/**
 * Removes what the authorization server no longer needs (`oauth-sweeper:all`): access tokens
 * past their hour, and grants past their end (a code never exchanged, a refresh token unused
 * for 30 days). Run at start-up, then hourly; in a cluster the one actor lives on one node.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { clock } from '../../engine/clock.js';
import { log } from '../../engine/log.js';
import { OAUTH_COLLECTIONS } from './collections.js';

/** Documents removed per write. */
const SWEEP_BATCH = 500;
/** Writes per sweep: the rest waits for the next one. */
const MAX_ROUNDS = 40;
const SWEEP_MS = 60 * 60 * 1000;

export type OAuthSweeperProtocol = {
  sweep: { in: null; out: { removed: number } };
};

/** `oauth-sweeper:all` */
export const OAuthSweeperKind = defineKind<OAuthSweeperProtocol>('oauth-sweeper');

export class OAuthSweeperActor extends Actor<OAuthSweeperProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<OAuthSweeperProtocol> = {
    sweep: async () => {
      let removed = 0;
      for (const collection of [OAUTH_COLLECTIONS.accessTokens, OAUTH_COLLECTIONS.grants]) {
        for (let round = 0; round < MAX_ROUNDS; round++) {
          const expired = await this.store.find(collection, { expiresAt: { $lt: clock.now() } }, { limit: SWEEP_BATCH });
          if (expired.length === 0) break;
          await this.commitNow(expired.map((doc) => ({ op: 'delete' as const, collection, id: doc._id })));
          removed += expired.length;
        }
      }
      return { removed };
    },
  };
}

/** Sweeps now and every hour. */
export function startOAuthSweeps(system: ActorSystem): void {
  const sweep = () => system.ask(OAuthSweeperKind, 'all', 'sweep', null).catch((err: unknown) => log.warn('oauth-sweep-failed', { err }));
  void sweep();
  setInterval(() => void sweep(), SWEEP_MS).unref();
}
