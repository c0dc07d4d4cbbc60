/** One comment of the queue: who, where, its state, its text, a selection box and every action. */
import { ACTIONS, authorOf } from '../model/actions.js';
import { shortDate, type Strings, t } from '../model/strings.js';
import type { ModComment } from '../model/types.js';

export interface CommentCardProps {
  strings: Strings;
  locale: string;
  comment: ModComment;
  focused: boolean;
  selected: boolean;
  busy: boolean;
  onFocus(): void;
  onSelect(selected: boolean): void;
  onAction(key: string): void;
  onBan(): void;
}

export function CommentCard({ strings, locale, comment: c, focused, selected, busy, onFocus, onSelect, onAction, onBan }: CommentCardProps) {
  const name = authorOf(c, t(strings, 'ANONYMOUS'));
  const states: string[] = [];
  if (c.approved === false && c.isDeleted !== true && c.isSpam !== true) states.push(t(strings, 'STATE_PENDING'));
  if (c.isSpam === true) states.push(t(strings, 'STATE_SPAM'));
  if (c.isDeleted === true) states.push(t(strings, 'STATE_REMOVED'));
  if ((c.flagCount ?? 0) > 0) states.push(t(strings, 'STATE_FLAGGED', { count: c.flagCount! }));
  if (c.isBannedUser === true) states.push(t(strings, 'STATE_BANNED'));
  if (c.reviewed === true) states.push(t(strings, 'STATE_REVIEWED'));
  const headingId = `h-${c._id}`;
  return (
    <li class={focused ? 'card focused' : 'card'}>
      <article id={`c-${c._id}`} aria-labelledby={headingId} tabIndex={focused ? 0 : -1} onFocusCapture={onFocus} aria-busy={busy}>
        <div class="card-head">
          <input type="checkbox" checked={selected} aria-label={t(strings, 'SELECT_COMMENT', { name })} onChange={(e) => onSelect((e.currentTarget as HTMLInputElement).checked)} />
          <h3 id={headingId}>{t(strings, 'COMMENT_BY', { name })}</h3>
          <span class="muted">
            {t(strings, 'ON_PAGE', { page: c.pageTitle || c.urlId })} · <time dateTime={c.date ?? undefined}>{shortDate(c.date, locale)}</time>
          </span>
        </div>
        {states.length > 0 && (
          <ul class="states">
            {states.map((s) => (
              <li>{s}</li>
            ))}
          </ul>
        )}
        <div class="text" dangerouslySetInnerHTML={{ __html: c.commentHTML }} />
        <div class="actions">
          {ACTIONS.filter((a) => a.applies(c)).map((a) => (
            <button type="button" class={a.key === 'a' ? 'primary' : undefined} disabled={busy} aria-keyshortcuts={a.key} onClick={() => onAction(a.key)}>
              {t(strings, a.label)}
            </button>
          ))}
          <button type="button" class="danger" disabled={busy} aria-keyshortcuts="b" onClick={onBan}>
            {t(strings, 'BAN_USER')}
          </button>
        </div>
      </article>
    </li>
  );
}
