/** The grants of one tenant user, as the connected apps and user deletion need them. */
import { OAUTH_COLLECTIONS } from '../../actors/oauth/collections.js';
import { type GrantDoc, GrantKind } from '../../actors/oauth/grant-protocol.js';
import { grantKey } from '../../actors/oauth/oauth-tokens.js';
import { clock } from '../../engine/clock.js';
import type { AppServices } from '../services.js';

/** Grants read per round. */
const PAGE = 200;

/** The user's grants in use (exchanged, not revoked, not expired), newest first, at most `limit`. */
export async function liveGrants(app: AppServices, tenantId: string, userId: string, limit: number): Promise<GrantDoc[]> {
  const live: GrantDoc[] = [];
  const now = clock.now();
  for (let skip = 0; live.length < limit; skip += PAGE) {
    const page = await app.store.find<GrantDoc>(OAUTH_COLLECTIONS.grants, { tenantId, userId }, { sort: [['createdAt', -1]], skip, limit: PAGE });
    for (const g of page) if (g.codeUsedAt !== null && g.revokedAt === null && g.expiresAt > now && live.length < limit) live.push(g);
    if (page.length < PAGE) break;
  }
  return live;
}

/** Revokes every grant of a user (deleting the user): each by its actor, with its tokens. */
export async function revokeUserGrants(app: AppServices, tenantId: string, userId: string): Promise<void> {
  for (;;) {
    const open = await app.store.find<GrantDoc>(OAUTH_COLLECTIONS.grants, { tenantId, userId, revokedAt: null, expiresAt: { $gt: clock.now() } }, { limit: PAGE });
    if (open.length === 0) return;
    await Promise.all(open.map((g) => app.system.ask(GrantKind, grantKey(tenantId, g._id), 'revoke', { userId })));
  }
}
