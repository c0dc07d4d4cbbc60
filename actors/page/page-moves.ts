/**
 * Comments leaving a page: deleted, moved to another urlId with their replies, or the whole
 * page renamed. A move is one durable batch that rewrites the documents with the new urlId;
 * the route then has the page at that urlId adopt them.
 */
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import { changedComment, COMMENTS, type CommentDoc, commentView, isVisible } from './comment-doc.js';
import { COMMENT_FLAGS } from './flag-doc.js';
import { PAGES } from './page-doc.js';
import { commentEvent } from './page-events.js';
import { ownPage, syncPage } from './page-record.js';
import type { PageHost } from './page-state.js';
import type { PageProtocol, PatchedComment, WebhookTargets } from './protocol.js';
import { queueWebhooks, webhookEvents, webhookOps } from './page-webhooks.js';
import { type PendingWebhookEventDoc, WEBHOOK_EVENTS } from '../webhook/protocol.js';
import { PAGE_REACTS, reactDocId } from './react-doc.js';
import { VOTES } from './vote-doc.js';
import { LoopYielder } from './yield-loop.js';

/**
 * Forgets a comment with its votes and flags, reporting each stored document through
 * `write` first (to delete it, or to rewrite it elsewhere).
 */
export function dropComment(host: PageHost, id: string, write: (collection: string, stored: Doc) => void): void {
  const { state } = host;
  for (const vote of state.votes.onComment(id)) {
    write(VOTES, vote);
    state.votes.remove(vote);
  }
  for (const [flagKey, flag] of [...state.flags]) {
    if (flag.commentId !== id) continue;
    write(COMMENT_FLAGS, flag);
    state.flags.delete(flagKey);
  }
  write(COMMENTS, state.comments.get(id)!);
  state.comments.delete(id);
  state.polls.delete(id);
  state.forget(id);
}

/**
 * Moves a comment (already changed to `next`) and its replies to the page `target`: one
 * durable batch rewrites them, and their votes and flags, with the new urlId. The moved
 * comment becomes a top-level comment there.
 */
export async function moveOut(host: PageHost, next: CommentDoc, target: string, isLive: boolean, webhooks: WebhookTargets): Promise<PatchedComment> {
  const { state } = host;
  const ids = state.subtree(next._id);
  const poll = state.polls.get(next._id);
  const polls: { id: string; isLocked: boolean }[] = [];
  let top: CommentDoc = next;
  const yielder = new LoopYielder();
  for (const id of ids) {
    await yielder.tick();
    const doc = id === next._id ? next : state.comments.get(id)!;
    const moved = changedComment(doc, { urlId: target, parentId: id === next._id ? null : doc.parentId });
    if (id === next._id) top = moved;
    if (doc.hasPoll) polls.push({ id, isLocked: moved.isLocked });
    if (isLive && isVisible(doc)) host.publish(commentEvent('deleted-comment', state.view(doc)));
    host.put(COMMENTS, moved);
    queueWebhooks(host, webhooks, WEBHOOK_EVENTS.updated, moved);
    dropComment(host, id, (coll, stored) => {
      if (coll !== COMMENTS) host.put(coll, { ...stored, urlId: target });
    });
  }
  state.restructure();
  syncPage(host, null);
  if (polls.length > 0) {
    await host.commitNow([]);
    for (const p of polls) await host.tellPoll(p.id, { isLocked: p.isLocked, urlId: target, deleted: false });
  }
  return { comment: commentView(top, poll), moved: { urlId: target, commentIds: ids } };
}

/**
 * `renamePage`: the whole page (record, comments, votes, flags, reactions) to another urlId
 * in one batch, made durable at once and alone, so that a page record already at the target
 * fails it cleanly with `page-exists`.
 */
export async function renamePage(host: PageHost, { pageId, urlId: target, webhooks }: PageProtocol['renamePage']['in']): Promise<PageProtocol['renamePage']['out']> {
  const { state } = host;
  const page = ownPage(host, pageId);
  const nowIso = new Date(clock.now()).toISOString();
  const ops: WriteOp[] = [{ op: 'put', collection: PAGES, doc: { ...page, urlId: target, updatedAt: nowIso } }];
  const events: PendingWebhookEventDoc[] = [];
  const yielder = new LoopYielder();
  for (const doc of [...state.comments.values()]) {
    await yielder.tick();
    const moved = changedComment(doc, { urlId: target });
    ops.push({ op: 'put', collection: COMMENTS, doc: moved });
    events.push(...webhookEvents(state.tenantId, webhooks, WEBHOOK_EVENTS.updated, moved));
  }
  ops.push(...webhookOps(events));
  for (const vote of state.votes.values()) ops.push({ op: 'put', collection: VOTES, doc: { ...vote, urlId: target } });
  for (const flag of state.flags.values()) ops.push({ op: 'put', collection: COMMENT_FLAGS, doc: { ...flag, urlId: target } });
  for (const react of state.reacts.values()) {
    ops.push({ op: 'delete', collection: PAGE_REACTS, id: react._id });
    const id = reactDocId(state.tenantId, target, react.kind, react.reactId, react.userKey);
    ops.push({ op: 'put', collection: PAGE_REACTS, doc: { ...react, _id: id, urlId: target } });
  }
  try {
    await host.commitNow(ops);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ApiError('page-exists', `A page with urlId ${target} already exists.`);
    throw err;
  }
  if (events.length > 0) host.announceWebhooks(events);
  const commentIds = [...state.comments.keys()];
  const polls = [...state.comments.values()].filter((d) => d.hasPoll).map((d) => ({ id: d._id, isLocked: d.isLocked }));
  state.clear();
  for (const p of polls) await host.tellPoll(p.id, { isLocked: p.isLocked, urlId: target, deleted: false });
  return { commentIds };
}
