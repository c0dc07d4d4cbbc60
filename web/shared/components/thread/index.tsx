/** The thread: "Show N new comments", the root comments with their replies, and "Load more". */
import type { WidgetController } from '../../../widget/controller.js';
import { CommentItem } from '../comment/index.js';

export function Thread({ c, now }: { c: WidgetController; now: number }) {
  const roots = c.order.filter((id) => !c.comments.get(id)?.parentId && !c.waiting.has(id));
  const waitingRoots = c.waitingUnder(null);
  return (
    <>
      {waitingRoots > 0 && (
        <button type="button" class="primary" onClick={() => c.reveal(null)}>
          {c.t('SHOW_NEW_COMMENTS', { count: waitingRoots })}
        </button>
      )}
      {!c.loading && roots.length === 0 && <p class="meta">{c.t('NO_COMMENTS_YET')}</p>}
      <ul aria-label={c.t('COMMENTS_TITLE')}>
        {roots.map((id) => (
          <CommentItem key={id} c={c} comment={c.comments.get(id)!} now={now} />
        ))}
      </ul>
      {c.hasMore && c.ssr && <a href={c.ssr.href({ page: String(c.page + 1) })}>{c.t('LOAD_MORE')}</a>}
      {c.hasMore && !c.ssr && (
        <button type="button" onClick={() => c.load(false, true)}>
          {c.t('LOAD_MORE')}
        </button>
      )}
      {c.errors.get('load') && (
        <p class="err" role="alert">
          {c.errors.get('load')}
        </p>
      )}
    </>
  );
}
