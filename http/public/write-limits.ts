/**
 * Per-client limits of the widget API's writes, beyond the budgets every public request spends
 * (http/public-access.ts: `PUBLIC_READ_RATE` for every request, `PUBLIC_WRITE_RATE` for every
 * one but GET): posting or editing a comment also spends `PUBLIC_COMMENTS_PER_MINUTE`, much
 * tighter. Buckets are per process and bounded in memory (http/rate-limit.ts).
 */
import { limitKey } from '../client-address.js';
import { TokenBuckets } from '../rate-limit.js';
import type { RouteRequest } from '../route.js';
import type { AppServices } from '../services.js';

const commentBuckets = new WeakMap<AppServices, TokenBuckets>();

/** Spends one comment post (or edit) of the calling client, or throws 429 `rate-limited`. */
export function spendCommentPost(req: RouteRequest<unknown, unknown>): void {
  let buckets = commentBuckets.get(req.app);
  if (buckets === undefined) {
    const { publicCommentsPerMinute, publicCommentBurst } = req.app.config;
    buckets = new TokenBuckets({ perSecond: publicCommentsPerMinute / 60, burst: publicCommentBurst });
    commentBuckets.set(req.app, buckets);
  }
  buckets.spend(limitKey(req.ip), 'comments');
}
