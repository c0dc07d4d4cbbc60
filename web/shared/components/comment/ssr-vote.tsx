/** A vote as a form of its own, for readers without JavaScript. */
import type { WidgetComment } from '../../types.js';
import type { WidgetController } from '../../../widget/controller.js';

export function SsrVote({ c, comment, dir }: { c: WidgetController; comment: WidgetComment; dir: 'up' | 'down' }) {
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
