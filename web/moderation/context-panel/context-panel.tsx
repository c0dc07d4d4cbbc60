/**
 * The focused comment's context: the comment it answers, its thread (the page, with a link),
 * the author's other comments and the comment's moderation log. Read again whenever the focus
 * moves or an action changes the comment (`version`); an answer for a comment no longer
 * focused is dropped. Below it, the tools that edit the comment and its author's badges and
 * trust factor (author-tools/).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../shared/api.js';
import { AuthorTools } from '../author-tools/author-tools.js';
import { authorOf } from '../model/actions.js';
import { shortDate, type Strings, t } from '../model/strings.js';
import type { ModComment, ModLog } from '../model/types.js';

/** The author's other comments shown at most. */
const OTHERS = 5;

export interface ContextPanelProps {
  strings: Strings;
  locale: string;
  api: Api;
  base: string;
  comment: ModComment | null;
  version: number;
  /** Changes the focused comment as the page shows it (after an edit). */
  onEdited(patch: Partial<ModComment>): void;
  announce(text: string): void;
  /** An action of this page is starting (see author-tools/). */
  onActing(): void;
}

interface Context {
  parent: ModComment | null;
  others: ModComment[];
  /** How many comments the author wrote, under which names (the pre-ban summary: it finds anonymous authors too). */
  summary: { count: number; usernames: string[] } | null;
  logs: ModLog[];
}

/** A link only to web pages (a stored url is the site's, but never trusted as a scheme). */
function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function ContextPanel({ strings, locale, api, base, comment, version, onEdited, announce, onActing }: ContextPanelProps) {
  const [context, setContext] = useState<Context | null>(null);
  useEffect(() => {
    setContext(null);
    if (comment === null) return;
    let live = true;
    const id = comment._id;
    const parent = comment.parentId ? api.call<{ comment: ModComment }>('GET', `${base}/comment/${comment.parentId}`).then((a) => a.comment, () => null) : Promise.resolve(null);
    const others = comment.userId
      ? api.call<{ comments: ModComment[] }>('GET', `${base}/api/comments`, { filters: JSON.stringify({ userId: comment.userId }), count: OTHERS + 1 }).then((a) => a.comments.filter((o) => o._id !== id).slice(0, OTHERS), () => [])
      : Promise.resolve([]);
    const logs = api.call<{ logs: ModLog[] }>('GET', `${base}/logs/${id}`).then((a) => a.logs, () => []);
    const summary = api.call<{ count: number; usernames: string[] }>('GET', `${base}/pre-ban-summary/${id}`).then((a) => ({ count: a.count, usernames: a.usernames }), () => null);
    void Promise.all([parent, others, logs, summary]).then(([p, o, l, sum]) => {
      if (live) setContext({ parent: p, others: o, logs: l, summary: sum });
    });
    return () => {
      live = false;
    };
  }, [comment?._id, version]);

  const name = comment === null ? '' : authorOf(comment, t(strings, 'ANONYMOUS'));
  const url = safeUrl(comment?.url);
  return (
    <aside aria-labelledby="context-title" class="context">
      <h2 id="context-title">{comment === null ? t(strings, 'CONTEXT') : t(strings, 'CONTEXT_OF', { name })}</h2>
      {comment === null ? (
        <p class="muted">{t(strings, 'NO_FOCUS')}</p>
      ) : context === null ? (
        <p class="muted">{t(strings, 'LOADING')}</p>
      ) : (
        <div>
          <h3>{t(strings, 'PARENT')}</h3>
          {context.parent === null ? (
            <p class="muted">{t(strings, 'NO_PARENT')}</p>
          ) : (
            <blockquote>
              <p class="muted">{authorOf(context.parent, t(strings, 'ANONYMOUS'))}</p>
              <div dangerouslySetInnerHTML={{ __html: context.parent.commentHTML }} />
            </blockquote>
          )}
          <h3>{t(strings, 'THREAD')}</h3>
          <p>{url === null ? comment.pageTitle || comment.urlId : <a href={url} target="_blank" rel="noopener noreferrer">{t(strings, 'OPEN_PAGE', { page: comment.pageTitle || comment.urlId })}</a>}</p>
          <h3>{t(strings, 'AUTHOR_COMMENTS')}</h3>
          {context.summary !== null && <p>{t(strings, 'BAN_SUMMARY', { count: context.summary.count, names: context.summary.usernames.join(', ') || name })}</p>}
          {context.others.length === 0 ? (
            // Without an account, the summary above is all there is to know (the filter finds users only).
            comment.userId ? <p class="muted">{t(strings, 'NO_AUTHOR_COMMENTS')}</p> : null
          ) : (
            <ul class="others">
              {context.others.map((o) => (
                <li>
                  <span class="muted">{shortDate(o.date, locale)}</span> <span dangerouslySetInnerHTML={{ __html: o.commentHTML }} />
                </li>
              ))}
            </ul>
          )}
          <h3>{t(strings, 'LOG')}</h3>
          {context.logs.length === 0 ? (
            <p class="muted">{t(strings, 'NO_LOG')}</p>
          ) : (
            <ul class="log">
              {context.logs.map((l) => (
                <li>
                  <time dateTime={l.date}>{shortDate(l.date, locale)}</time> {l.username}: {l.actionName}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {comment !== null && <AuthorTools strings={strings} api={api} base={base} comment={comment} onEdited={onEdited} announce={announce} onActing={onActing} />}
    </aside>
  );
}
