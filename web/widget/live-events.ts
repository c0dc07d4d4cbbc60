/**
 * Applies one live frame to the widget: new comments wait behind "Show N new comments" (or
 * under their parent) unless `showLiveRightAway`, edits, deletions, votes, presence,
 * notifications and thread state apply in place. Answers whether anything changed.
 */
import type { WidgetComment } from '../shared/types.js';
import type { WidgetHost } from './widget-host.js';
import type { LiveFrame } from './live.js';

export function applyLiveEvent(c: WidgetHost, event: LiveFrame): boolean {
  const comment = event['comment'] as WidgetComment | undefined;
  switch (event.type) {
    case 'new-comment': {
      if (!comment || c.comments.has(comment._id)) {
        // A held comment approved: it stays where it is, no longer marked held.
        if (comment && c.comments.get(comment._id)?.approved === false) c.patch(comment._id, comment);
        return false;
      }
      c.thread.insert(comment, Boolean(c.config.showLiveRightAway), c.direction);
      if (!comment.parentId) c.commentCount++;
      c.announcement = c.config.showLiveRightAway ? `${comment.commenterName ?? ''}: ${c.t('SUBMIT_COMMENT')}` : c.t('SHOW_NEW_COMMENTS', { count: c.waitingUnder(comment.parentId ?? null) });
      return true;
    }
    case 'updated-comment':
      if (comment) c.patch(comment._id, comment);
      return true;
    case 'deleted-comment':
      if (comment) c.drop(comment._id);
      return true;
    case 'new-vote':
    case 'deleted-vote': {
      const counts = event['counts'] as { commentId: string; votes: number; votesUp: number; votesDown: number } | undefined;
      if (counts) c.patch(counts.commentId, { votes: counts.votes, votesUp: counts.votesUp, votesDown: counts.votesDown });
      return true;
    }
    case 'cvc': {
      // A hot page's votes, folded per window (http/live/vote-coalescer.ts): the counts after it.
      const counts = event['counts'] as Record<string, { votes: number; votesUp: number; votesDown: number }> | undefined;
      for (const [id, n] of Object.entries(counts ?? {})) c.patch(id, { votes: n.votes, votesUp: n.votesUp, votesDown: n.votesDown });
      return true;
    }
    case 'p-u':
      if (typeof event['sc'] === 'number') c.online = Math.max(1, event['sc']);
      c.onlineUsers.stale();
      return true;
    case 'notification': {
      const text = c.bell.received(event['notification']);
      if (text) c.announcement = text;
      return true;
    }
    case 'notification-update':
      if (typeof event['changes']?.['count'] === 'number') c.bell.count = event['changes']['count'];
      return true;
    case 'thread-state-change':
      c.isClosed = Boolean(event['isClosed']);
      return true;
    case 'page-react':
      c.reactions.onLive(event);
      return true;
    case 'poll-update':
      c.polls.onLive(event);
      return true;
    case 'new-config':
      if (event['config']) c.applyServerConfig(event['config']);
      return true;
    default:
      return false;
  }
}
