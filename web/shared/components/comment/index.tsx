/**
 * One comment with its avatar, badges, actions and, below it, its replies: those of a comment
 * deeper than the configured depth wait behind "Show N replies".
 */
import { useState } from 'preact/hooks';
import type { WidgetComment } from '../../types.js';
import type { WidgetController } from '../../../widget/controller.js';
import { relativeDate } from '../../time.js';
import { Avatar } from '../avatar/index.js';
import { Badges } from '../badges/index.js';
import { CommentForm } from '../comment-form/index.js';
import { ModeratorMenu } from '../moderator-menu/index.js';
import { SsrVote } from './ssr-vote.js';

/** Replies of comments at this depth start collapsed, each subtree behind one button (roots are depth 0). */
const DEFAULT_COLLAPSE_DEPTH = 3;
import { Poll } from '../poll/index.js';

export interface CommentItemProps {
  c: WidgetController;
  comment: WidgetComment;
  now: number;
  /** 0 for a root comment, 1 for its replies, ... */
  depth?: number;
}

/**
 * Whether the replies of comment `id` at `depth` start collapsed: `collapseReplies` collapses
 * those of root comments, `collapseRepliesDepth` (default 3) those of comments at that depth,
 * each whole subtree behind one button. Never without JavaScript, nor on the way to the
 * permalink's comment.
 */
function startsCollapsed(c: WidgetController, id: string, depth: number): boolean {
  if (c.ssr) return false;
  const limit = typeof c.config['collapseRepliesDepth'] === 'number' ? c.config['collapseRepliesDepth'] : DEFAULT_COLLAPSE_DEPTH;
  if (!(depth === limit || (c.config['collapseReplies'] === true && depth === 0))) return false;
  for (let p = c.permalink && c.comments.get(c.permalink)?.parentId; p; p = c.comments.get(p)?.parentId) if (p === id) return false;
  return true;
}

export function CommentItem({ c, comment, now, depth = 0 }: CommentItemProps) {
  const [replyOpen, setReplying] = useState(false);
  const [expanded, setExpanded] = useState(false);
  const ssr = c.ssr;
  const replying = ssr ? ssr.replyTo === comment._id : replyOpen;
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const id = comment._id;
  const name = comment.commenterName || '—';
  const date = comment.date === undefined ? undefined : new Date(comment.date);
  const replies = c.thread.repliesOf(id);
  const waiting = c.waitingUnder(id);
  const collapsed = !expanded && startsCollapsed(c, id, depth);
  const readonly = Boolean(c.config.readonly);
  const maxDepth = c.config['maxReplyDepth'];
  const mayReply = !readonly && !c.isClosed && !(typeof maxDepth === 'number' && depth >= maxDepth);
  const avatarSrc = comment.avatarSrc || (typeof c.config['defaultAvatarSrc'] === 'string' ? c.config['defaultAvatarSrc'] : null);
  const score = (comment.votesUp ?? 0) - (comment.votesDown ?? 0);
  const mine = c.owns(comment);
  return (
    <li>
      <article
        aria-labelledby={`fc-h-${id}`}
        id={`fc-${id}`}
        itemscope
        itemtype="https://schema.org/Comment"
        tabIndex={c.permalink === id ? -1 : undefined}
        ref={(el) => {
          if (el && c.jumpTo === id && !c.ssr) {
            // A permalink: scrolled to and focused once (later renders leave the page alone).
            c.jumpTo = undefined;
            requestAnimationFrame(() => {
              el.scrollIntoView({ block: 'center' });
              el.focus({ preventScroll: true });
            });
          }
        }}
      >
        <div class="head">
          {c.config['hideAvatars'] !== true && <Avatar name={name} src={avatarSrc} alt={c.t('AVATAR_OF', { name })} />}
          <span class="name" id={`fc-h-${id}`} itemprop="author">
            {comment.commenterLink ? (
              <a href={comment.commenterLink} rel="nofollow ugc noopener">
                {name}
              </a>
            ) : (
              name
            )}
            <span class="sr"> </span>
          </span>
          {comment.isByAdmin && <span class="label">{c.t('ADMIN_LABEL')}</span>}
          {comment.isByModerator && !comment.isByAdmin && <span class="label">{c.t('MODERATOR_LABEL')}</span>}
          {comment.displayLabel && <span class="meta">{comment.displayLabel}</span>}
          <Badges badges={comment.badges} label={c.t('BADGES')} />
          {date && (
            <time class="meta" itemprop="dateCreated" dateTime={date.toISOString()} title={date.toLocaleString()}>
              {relativeDate(c.strings, date, now, c.locale)}
            </time>
          )}
          {comment.approved === false && !comment.isSpam && <span class="meta">{c.t('AWAITING_APPROVAL')}</span>}
          {comment.isSpam && c.isModerator && <span class="label">{c.t('SPAM_LABEL')}</span>}
          {comment.isBannedUser && c.isModerator && <span class="label">{c.t('BANNED_LABEL')}</span>}
          {comment.isPinned && <span class="meta">{c.t('PINNED')}</span>}
          {comment.isLocked && <span class="meta">{c.t('LOCKED')}</span>}
        </div>
        {comment.isDeleted ? (
          <p class="deleted">{c.t('DELETED_COMMENT')}</p>
        ) : editing !== undefined ? (
          <CommentForm
            formId={`fc-edit-${id}`}
            label={c.t('EDIT_COMMENT')}
            submitLabel={c.t('SAVE')}
            cancelLabel={c.t('CANCEL')}
            initial={editing}
            askName={false}
            nameLabel=""
            emailLabel=""
            maxLength={c.maxLength}
            formatting={c.formatting()}
            error={c.errors.get(`edit:${id}`)}
            tooLongText={c.t('COMMENT_TOO_LONG', { max: c.maxLength })}
            autoFocus
            onCancel={() => setEditing(undefined)}
            onSubmit={async ({ text }) => {
              const ok = await c.actions.edit(comment, text);
              if (ok) setEditing(undefined);
              return ok;
            }}
          />
        ) : (
          <div class="body" itemprop="text" dangerouslySetInnerHTML={{ __html: comment.commentHTML }} />
        )}
        {comment.poll && !comment.isDeleted && <Poll c={c} commentId={id} poll={comment.poll} />}
        {!comment.isDeleted && editing === undefined && (
          <div class="actions" role="group" aria-label={c.t('COMMENT_BY', { name })}>
            {ssr ? (
              <SsrVote c={c} comment={comment} dir="up" />
            ) : (
              <button type="button" aria-pressed={Boolean(comment.isVotedUp)} aria-label={c.t('VOTE_UP')} disabled={readonly} onClick={() => c.actions.vote(comment, 'up')}>
                ▲
              </button>
            )}
            <span aria-label={c.t('VOTES', { count: score })}>{score}</span>
            {ssr ? (
              <SsrVote c={c} comment={comment} dir="down" />
            ) : (
              <button type="button" aria-pressed={Boolean(comment.isVotedDown)} aria-label={c.t('VOTE_DOWN')} disabled={readonly} onClick={() => c.actions.vote(comment, 'down')}>
                ▼
              </button>
            )}
            {mayReply && ssr && !replying && <a href={`${ssr.href({ replyTo: id })}#fc-${id}`}>{c.t('REPLY')}</a>}
            {mayReply && !ssr && (
              <button type="button" aria-expanded={replying} onClick={() => setReplying(!replying)}>
                {c.t('REPLY')}
              </button>
            )}
            {mine && !readonly && !ssr && (
              <button
                type="button"
                onClick={async () => {
                  const text = await c.actions.textOf(comment);
                  if (text !== undefined) setEditing(text);
                }}
              >
                {c.t('EDIT')}
              </button>
            )}
            {mine && !readonly && !ssr && (
              <button type="button" onClick={() => c.actions.remove(comment)}>
                {c.t('DELETE')}
              </button>
            )}
            {c.isModerator && !ssr && <ModeratorMenu c={c} comment={comment} name={name} />}
            {!mine && !ssr && !comment.isByAdmin && !comment.isByModerator && (
              <button type="button" aria-pressed={Boolean(comment.isFlagged)} onClick={() => c.actions.flag(comment)}>
                {c.t('FLAG')}
              </button>
            )}
            {!mine && !ssr && !comment.isByAdmin && !comment.isByModerator && (
              <button type="button" aria-pressed={Boolean(comment.isBlocked)} onClick={() => c.actions.block(comment)}>
                {comment.isBlocked ? c.t('UNBLOCK_USER') : c.t('BLOCK_USER')}
              </button>
            )}
          </div>
        )}
        {(c.errors.get(`vote:${id}`) || c.errors.get(`actions:${id}`)) && (
          <p class="err" role="alert">
            {c.errors.get(`vote:${id}`) ?? c.errors.get(`actions:${id}`)}
          </p>
        )}
        {replying && (
          <CommentForm
            formId={`fc-reply-${id}`}
            label={c.t('REPLY_TO', { name })}
            submitLabel={c.t('SUBMIT_REPLY')}
            cancelLabel={c.t('CANCEL')}
            askName={c.needsName()}
            nameLabel={c.t('YOUR_NAME')}
            emailLabel={c.t('YOUR_EMAIL')}
            maxLength={c.maxLength}
            formatting={c.formatting()}
            error={c.errors.get(`reply:${id}`) ?? (ssr?.error?.where === `reply:${id}` ? ssr.error.text : undefined)}
            action={ssr?.postAction}
            hidden={ssr ? { ...ssr.hidden, parentId: id } : undefined}
            tooLongText={c.t('COMMENT_TOO_LONG', { max: c.maxLength })}
            autoFocus={!ssr}
            onCancel={ssr ? undefined : () => setReplying(false)}
            onSubmit={async ({ text, name: n, email }) => {
              const ok = await c.actions.post({ text, name: n || undefined, email: email || undefined, parentId: id }, `reply:${id}`);
              if (ok) {
                setReplying(false);
                setExpanded(true);
              }
              return ok;
            }}
          />
        )}
      </article>
      {waiting > 0 && (
        <button
          type="button"
          onClick={() => {
            c.reveal(id);
            setExpanded(true);
          }}
        >
          {c.t('SHOW_NEW_COMMENTS', { count: waiting })}
        </button>
      )}
      {replies.length > 0 && startsCollapsed(c, id, depth) && (
        <button
          type="button"
          aria-expanded={!collapsed}
          aria-controls={`fc-replies-${id}`}
          onClick={() => {
            setExpanded(collapsed);
            c.announce(collapsed ? c.t('REPLIES_SHOWN', { count: c.thread.descendantCount(id) }) : '');
          }}
        >
          {collapsed ? c.t('SHOW_REPLIES', { count: c.thread.descendantCount(id) }) : c.t('HIDE_REPLIES')}
        </button>
      )}
      {replies.length > 0 && !collapsed && (
        <ul id={`fc-replies-${id}`}>
          {replies.map((r) => (
            <CommentItem key={r} c={c} comment={c.comments.get(r)!} now={now} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}
