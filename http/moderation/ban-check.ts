/**
 * Bans hold on every write path (docs/moderation.md, "Bans"): posting, voting, reacting and
 * flagging, through the widget API and the management API. A normal ban refuses with 403
 * `banned` and `bannedUntil`; a shadow ban lets the person post, their comment held from
 * everyone else and marked `isBannedUser`, so they do not learn of it from the answer.
 */
import { type BanHit, MODERATION_VIEWS, ModerationKind } from '../../actors/moderation/moderation-actor.js';
import type { Writer } from '../../actors/moderation/ban-model.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';
import { ipHashOf } from './ip-hash.js';

/** A writer as a route knows them: `ip` is the client address, hashed only when a ban could match it. */
export type WriterAt = Partial<Writer> & { readonly ip?: string | null };

function fullWriter(app: AppServices, tenantId: string, writer: WriterAt): Writer {
  return { userId: writer.userId ?? null, anonUserId: writer.anonUserId ?? null, email: writer.email ?? null, ipHash: writer.ipHash ?? ipHashOf(app, tenantId, writer.ip) };
}

/** The ban in force on the writer, if any (an expired ban no longer counts). */
export async function banOn(app: AppServices, tenantId: string, writer: WriterAt): Promise<BanHit | null> {
  // A tenant without bans (the common case) costs its voters no message and no hash.
  if (app.system.peek(ModerationKind, tenantId, MODERATION_VIEWS.banCount) === 0) return null;
  const full = fullWriter(app, tenantId, writer);
  if (full.userId === null && full.anonUserId === null && full.email === null && full.ipHash === null) return null;
  return app.system.ask(ModerationKind, tenantId, 'check', { writer: full });
}

/** Refuses a banned writer (403 `banned`, with `bannedUntil`); a shadow ban is let through only where `shadowOk`. */
export function refuseBanned(hit: BanHit | null, shadowOk: boolean): void {
  if (hit === null || (shadowOk && hit.banType === 'shadow')) return;
  throw new ApiError('banned', hit.bannedUntil === null ? 'You are banned from commenting on this site.' : `You are banned from commenting on this site until ${hit.bannedUntil}.`, { bannedUntil: hit.bannedUntil });
}

/**
 * Screens a comment about to be posted (one message to the tenant's moderation actor): refuses
 * a normal ban; answers whether a shadow ban holds the comment and whether the tenant's spam
 * classifier suspects it (it then lands in the moderation queue as spam).
 */
export async function screenPost(app: AppServices, tenantId: string, writer: WriterAt, text: string): Promise<{ shadow: boolean; suspected: boolean; proofOfWork: boolean }> {
  const full = fullWriter(app, tenantId, writer);
  const { ban, suspected, settings } = await app.system.ask(ModerationKind, tenantId, 'screen', { writer: full, text });
  refuseBanned(ban, true);
  return { shadow: ban !== null, suspected, proofOfWork: settings.requireProofOfWork };
}

/** Checks a writer who is about to vote, react or flag: any ban in force refuses. */
export async function assertNotBanned(app: AppServices, tenantId: string, writer: WriterAt): Promise<void> {
  refuseBanned(await banOn(app, tenantId, writer), false);
}
