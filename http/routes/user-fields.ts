/**
 * What the user endpoints share: field schemas, the checks of names and emails, and the
 * deletion query (`deleteComments`, `commentDeleteMode`).
 */
import { eraseUser } from '../../actors/jobs/user-erase-actor.js';
import { eraseRecipient } from '../../actors/notify/erase.js';
import type { EraseMode } from '../../actors/page/protocol.js';
import { type ApiUserKind, type ApiWriteMode, type UserDoc, UserKind, userActorId } from '../../actors/user/protocol.js';
import { revokeUserGrants } from '../oauth/user-grants.js';
import type { AppServices } from '../services.js';
import { checkEmail } from '../../actors/page/comment-rules.js';
import { hasUnsafeCharacters } from '../../actors/text-rules.js';
import { ApiError } from '../../engine/errors.js';
import type { Schema } from '../route.js';
import { imageSrc, link, text } from './page-context.js';
import { badgeUserActorId } from '../../actors/badge/badge-model.js';
import { BadgeUserKind } from '../../actors/badge/protocol.js';

export const bool: Schema = { type: 'boolean' };
const count: Schema = { type: 'integer', minimum: 0, maximum: 1_000_000_000 };
const EPOCH_MS: Schema = { type: 'number', minimum: 0, maximum: 8_640_000_000_000_000 };

/** Fields every API-managed user may carry. */
export const USER_FIELDS: Readonly<Record<string, Schema>> = {
  username: text(256),
  email: text(320),
  displayName: text(256),
  displayLabel: text(256),
  avatarSrc: imageSrc(2048),
  websiteUrl: link(2048),
  signUpDate: EPOCH_MS,
  loginCount: count,
  optedInNotifications: bool,
};

/** `deleteComments` and `commentDeleteMode` of user deletions. */
export interface DeleteUserQuery {
  deleteComments?: boolean;
  commentDeleteMode?: 0 | 1;
}

export const DELETE_USER_QUERY: Schema = {
  type: 'object',
  properties: { deleteComments: bool, commentDeleteMode: { type: 'integer', enum: [0, 1] } },
};

/** How a deletion treats the user's comments: not at all (null), removed (default) or anonymized. */
export function eraseModeOf(query: DeleteUserQuery): EraseMode | null {
  if (query.deleteComments !== true) return null;
  return query.commentDeleteMode === 1 ? 'anonymize' : 'remove';
}

/**
 * A write of the management API to an SSO or tenant user (`create`, `patch`, `replace`), after
 * the checks both kinds share. `updateComments=true` is refused: comments keep the name and
 * email they were written with.
 */
export async function writeUser(app: AppServices, tenantId: string, userId: string, kind: ApiUserKind, mode: ApiWriteMode, body: Readonly<Record<string, unknown>>, updateComments?: boolean): Promise<UserDoc> {
  if (updateComments === true) throw new ApiError('invalid-param', 'updateComments=true is not supported: comments keep the name and email they were written with.');
  checkPersonFields(body);
  return app.system.ask(UserKind, userActorId(tenantId, userId), 'apiWrite', { kind, mode, input: body });
}

/** Deletes an SSO or tenant user, with its comments when the query asks (a durable job); answers the deleted user. */
export async function deleteUser(app: AppServices, tenantId: string, userId: string, kind: ApiUserKind, query: DeleteUserQuery): Promise<UserDoc> {
  const mode = eraseModeOf(query);
  // The applications the user connected stop working with the user (before it goes, so a retry finds them).
  if (kind === 'tenant') await revokeUserGrants(app, tenantId, userId);
  const current = await app.system.ask(UserKind, userActorId(tenantId, userId), 'get', null);
  if (current === null || current.kind !== kind) throw new ApiError('not-found', `No ${kind === 'sso' ? 'SSO' : 'tenant'} user ${userId}.`);
  if (mode !== null) return (await eraseUser(app.system, tenantId, userId, kind, mode)) ?? current;
  // The comments stay; the user's notifications and subscriptions go with it (a retried DELETE finishes both).
  await eraseRecipient(app.system, tenantId, userId);
  await app.system.ask(BadgeUserKind, badgeUserActorId(tenantId, userId), 'erase', null);
  return app.system.ask(UserKind, userActorId(tenantId, userId), 'remove', { kind });
}

/** Checks the names and email a body sets (they are shown to other people). */
export function checkPersonFields(body: Readonly<Record<string, unknown>>): void {
  for (const field of ['username', 'displayName', 'displayLabel']) {
    const value = body[field];
    if (typeof value === 'string' && hasUnsafeCharacters(value)) throw new ApiError('invalid-name', `${field} may not hold control or bidirectional-override characters.`);
  }
  if (typeof body['email'] === 'string' && body['email'] !== '') checkEmail(body['email']);
}
