/** One comment with its actions and, below it, its replies. */
import { useState } from 'preact/hooks';
import type { WidgetComment } from '../../types.js';
import type { WidgetController } from '../../../widget/controller.js';
import { relativeDate } from '../../time.js';
import { CommentForm } from '../comment-form/index.js';

export interface CommentItemProps {
  c: WidgetController;
  comment: WidgetComment;
  now: number;
}

export function CommentItem({ c, comment, now }: CommentItemProps) {
  const [replyOpen, setReplying] = useState(false);
  const ssr = c.ssr;
  const replying = ssr ? ssr.replyTo === comment._id : replyOpen;
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const id = comment._id;
  const name = comment.commenterName || '—';
  const date = comment.date === undefined ? undefined : new Date(comment.date);
  const replies = c.order.filter((x) => c.comments.get(x)?.parentId === id && !c.waiting.has(x));
  const waiting = c.waitingUnder(id);
  const readonly = Boolean(c.config.readonly);
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
          {comment.displayLabel && <span class="meta">{comment.displayLabel}</span>}
          {date && (
            <time class="meta" itemprop="dateCreated" dateTime={date.toISOString()} title={date.toLocaleString()}>
              {relativeDate(c.strings, date, now, c.locale)}
            </time>
          )}
          {comment.approved === false && <span class="meta">{c.t('AWAITING_APPROVAL')}</span>}
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
            {!readonly && !c.isClosed && ssr && !replying && <a href={`${ssr.href({ replyTo: id })}#fc-${id}`}>{c.t('REPLY')}</a>}
            {!readonly && !c.isClosed && !ssr && (
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
            {c.isModerator && !ssr && !comment.parentId && (
              <button type="button" onClick={() => c.moderation.publicAction(comment, comment.isPinned ? 'unpin' : 'pin')}>
                {c.t(comment.isPinned ? 'UNPIN' : 'PIN')}
              </button>
            )}
            {c.isModerator && !ssr && (
              <button type="button" onClick={() => c.moderation.publicAction(comment, comment.isLocked ? 'unlock' : 'lock')}>
                {c.t(comment.isLocked ? 'UNLOCK' : 'LOCK')}
              </button>
            )}
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
              if (ok) setReplying(false);
              return ok;
            }}
          />
        )}
      </article>
      {waiting > 0 && (
        <button type="button" onClick={() => c.reveal(id)}>
          {c.t('SHOW_NEW_COMMENTS', { count: waiting })}
        </button>
      )}
      {replies.length > 0 && (
        <ul>
          {replies.map((r) => (
            <CommentItem key={r} c={c} comment={c.comments.get(r)!} now={now} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** A vote as a form of its own, for readers without JavaScript. */
function SsrVote({ c, comment, dir }: { c: WidgetController; comment: WidgetComment; dir: 'up' | 'down' }) {
  const ssr = c.ssr!;
  const pressed = dir === 'up' ? comment.isVotedUp : comment.isVotedDown;
  return (
    <form method="post" action={ssr.voteAction} class="inline">
      {Object.entries(ssr.hidden).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <input type="hidden" name="commentId" value={comment._id} />
      <input type="hidden" name="voteDir" value={dir} />
      <button type="submit" aria-pressed={Boolean(pressed)} aria-label={c.t(dir === 'up' ? 'VOTE_UP' : 'VOTE_DOWN')}>
        {dir === 'up' ? '▲' : '▼'}
      </button>
    </form>
  );
}
