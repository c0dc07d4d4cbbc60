import type { ActorSystem } from '../engine/actor-system.js';
import { BlockActor } from './block/block-actor.js';
import { BlockKind } from './block/protocol.js';
import { HashTagActor } from './hashtag/hashtag-actor.js';
import { HashTagKind } from './hashtag/protocol.js';
import { PageActor } from './page/page-actor.js';
import { PageKind } from './page/protocol.js';
import { SiteKind } from './site/protocol.js';
import { SiteActor } from './site/site-actor.js';
import { UsernameActor } from './user/username-actor.js';
import { EventLogActor, EventLogSweeperActor } from './live/event-log-actor.js';
import { EventLogKind, EventLogSweeperKind } from './live/event-log-protocol.js';
import { PollActor } from './poll/poll-actor.js';
import { PollKind, PollVoteLocatorKind } from './poll/protocol.js';
import { PollVoteLocator } from './poll/vote-locator-actor.js';
import { TenantActor, TenantKind } from './tenant/tenant-actor.js';
import { UserKind, UsernameKind } from './user/protocol.js';
import { UserActor } from './user/user-actor.js';
import { identityActors } from './identity.js';
import { ClientActor, ClientKind } from './oauth/client-actor.js';
import { GrantActor } from './oauth/grant-actor.js';
import { GrantKind } from './oauth/grant-protocol.js';
import { OAuthSweeperActor, OAuthSweeperKind } from './oauth/sweeper.js';
import { ReaderReadsActor, ReaderReadsKind } from './reader/reader-reads-actor.js';

/** Registers every kind of actor with the system. */
export function registerActors(system: ActorSystem): void {
  system.register(TenantKind, (ctx) => new TenantActor(ctx));
  system.register(UserKind, (ctx) => new UserActor(ctx));
  system.register(UsernameKind, (ctx) => new UsernameActor(ctx));
  system.register(PageKind, (ctx) => new PageActor(ctx));
  system.register(SiteKind, (ctx) => new SiteActor(ctx));
  system.register(HashTagKind, (ctx) => new HashTagActor(ctx));
  system.register(BlockKind, (ctx) => new BlockActor(ctx));
  system.register(PollKind, (ctx) => new PollActor(ctx));
  system.register(PollVoteLocatorKind, (ctx) => new PollVoteLocator(ctx));
  system.register(EventLogKind, (ctx) => new EventLogActor(ctx));
  system.register(EventLogSweeperKind, (ctx) => new EventLogSweeperActor(ctx));
  identityActors(system);
  system.register(GrantKind, (ctx) => new GrantActor(ctx));
  system.register(ClientKind, (ctx) => new ClientActor(ctx));
  system.register(OAuthSweeperKind, (ctx) => new OAuthSweeperActor(ctx));
  system.register(ReaderReadsKind, (ctx) => new ReaderReadsActor(ctx));
}
