/**
 * Webhook events of a page's comment changes. Each change queues one pending event per matching
 * subscription, written in the page's own batch with the change: both are durable, or neither.
 * Once the batch is durable the page announces the events, and the tenant's webhooks actor
 * delivers them. Vote counts and flag counts alone fire nothing (FastComments has no vote
 * events); a flag that hides a comment is an update.
 */
import { clock } from '../../engine/clock.js';
import { newId } from '../../engine/ids.js';
import type { WriteOp } from '../../storage/store.js';
import { type PendingWebhookEventDoc, WEBHOOK_COLLECTIONS, type WebhookEvent, type WebhookTarget } from '../webhook/protocol.js';
import { commentDomain, commentSnapshot, domainMatches, pendingEvent } from '../webhook/webhook-model.js';
import type { CommentDoc } from './comment-doc.js';
import type { PageHost } from './page-state.js';

/** The pending events one change of a comment makes for the matching subscriptions (often none). */
export function webhookEvents(tenantId: string, targets: readonly WebhookTarget[], event: WebhookEvent, doc: CommentDoc): PendingWebhookEventDoc[] {
  if (targets.length === 0) return [];
  let events: PendingWebhookEventDoc[] | undefined;
  let snapshot: Record<string, unknown> | undefined;
  const site = commentDomain(doc);
  for (const target of targets) {
    if (target.event !== event || !domainMatches(target.domain, site)) continue;
    snapshot ??= commentSnapshot(doc);
    const now = clock.now();
    (events ??= []).push(pendingEvent(newId(now), target, tenantId, snapshot, site, now));
  }
  return events ?? [];
}

/** The insert ops of pending events (for a batch made durable at once with `commitNow`). */
export function webhookOps(events: readonly PendingWebhookEventDoc[]): WriteOp[] {
  return events.map((doc) => ({ op: 'insert', collection: WEBHOOK_COLLECTIONS.pending, doc }));
}

/** Queues the events of one change in the page's open batch, and their announcement after it. */
export function queueWebhooks(host: PageHost, targets: readonly WebhookTarget[], event: WebhookEvent, doc: CommentDoc): void {
  const events = webhookEvents(host.state.tenantId, targets, event, doc);
  if (events.length === 0) return;
  for (const doc of events) host.insert(WEBHOOK_COLLECTIONS.pending, doc);
  host.announceWebhooks(events);
}
