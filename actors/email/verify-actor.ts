import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { COMMENTS, type CommentDoc } from '../page/comment-doc.js';
import { pageLocator } from '../page/locator.js';
import { TenantKind } from '../tenant/tenant-actor.js';
import { webhookTargets } from '../webhook/protocol.js';
import type { EmailVerifyProtocol } from './protocol.js';

/** Comments verified per link opening (a user with more is verified in pages of this size on each opening). */
const MAX_COMMENTS = 10_000;

/**
 * Verifies one user's comments when their verification link is opened. The comments may be on
 * many pages: they are found through the comments' (tenant, user) index, and each is changed by
 * the page actor that owns it. Opening the link again is harmless and picks up any comment the
 * first opening missed.
 */
export class EmailVerifyActor extends Actor<EmailVerifyProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<EmailVerifyProtocol> = {
    verify: async () => {
      const colon = this.id.indexOf(':');
      const tenantId = this.id.slice(0, colon);
      const userId = this.id.slice(colon + 1);
      const docs = await this.store.find<CommentDoc>(COMMENTS, { tenantId, userId, verified: false }, { limit: MAX_COMMENTS });
      const locator = pageLocator(this.system);
      const verifiedDate = new Date(clock.now()).toISOString();
      let verifiedCount = 0;
      const webhooks = docs.length === 0 ? [] : await webhookTargets(this.system, tenantId);
      for (const doc of docs) {
        try {
          const settings = await this.system.ask(TenantKind, tenantId, 'settings', { urlId: doc.urlId });
          await locator.ask('comment', tenantId, doc._id, 'patchComment', {
            commentId: doc._id,
            changes: { verified: true, verifiedDate },
            settings,
            isLive: true,
            userIdForEmail: null,
            webhooks,
          }, () => new ApiError('not-found'));
          verifiedCount++;
        } catch (err) {
          // Deleted since it was found, or locked by a moderator: left as it is.
          if (!(err instanceof ApiError && (err.code === 'not-found' || err.code === 'locked'))) throw err;
        }
      }
      return { verifiedCount };
    },
  };
}
