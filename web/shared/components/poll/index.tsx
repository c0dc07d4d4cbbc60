/**
 * A poll attached to a comment: its question and options as one radio group with a vote
 * button (a voter has one vote per poll), the results once the server shows them (a bar and
 * the count per option), and changing or taking back the vote. Read-only on the server-rendered
 * page.
 */
import { useState } from 'preact/hooks';
import type { WidgetPoll } from '../../types.js';
import type { WidgetController } from '../../../widget/controller.js';

export interface PollProps {
  c: WidgetController;
  commentId: string;
  poll: WidgetPoll;
}

export function Poll({ c, commentId, poll: given }: PollProps) {
  // Idempotent: asks the server once per poll (again after a reset), never on the server-rendered page.
  c.polls.ensure(commentId, given);
  const { poll, myOptionId, isClosed } = c.polls.view(commentId, given);
  const [picked, setPicked] = useState<string | null>(null);
  const choice = picked ?? myOptionId;
  const hidden = poll.resultsHidden === true || typeof poll.totalVotes !== 'number';
  const total = poll.totalVotes ?? 0;
  const readonly = Boolean(c.ssr || c.config.readonly || isClosed);
  const error = c.polls.errors.get(commentId);
  const name = `fc-poll-${commentId}`;
  return (
    <form
      class="poll"
      aria-labelledby={`${name}-q`}
      onSubmit={(e) => {
        e.preventDefault();
        if (choice !== null && choice !== myOptionId) void c.polls.vote(commentId, choice).then(() => setPicked(null));
      }}
    >
      <fieldset disabled={readonly}>
        <legend id={`${name}-q`}>{poll.question}</legend>
        {poll.options.map((o) => {
          const votes = o.votes ?? 0;
          const percent = total > 0 ? Math.round((votes / total) * 100) : 0;
          return (
            <div class="poll-option">
              <label>
                <input type="radio" name={name} value={o.id} checked={choice === o.id} onChange={() => setPicked(o.id)} />
                <span>{o.label}</span>
                {myOptionId === o.id && <span class="meta"> ({c.t('POLL_YOUR_VOTE')})</span>}
              </label>
              {!hidden && (
                <>
                  <span class="poll-bar" aria-hidden="true">
                    <span style={{ width: `${percent}%` }} />
                  </span>
                  <span class="meta">{c.t('POLL_OPTION_RESULT', { count: votes, percent })}</span>
                </>
              )}
            </div>
          );
        })}
      </fieldset>
      <div class="row">
        {!readonly && (
          <button type="submit" class="primary" disabled={choice === null || choice === myOptionId}>
            {c.t(myOptionId === null ? 'POLL_VOTE' : 'POLL_CHANGE_VOTE')}
          </button>
        )}
        {!readonly && myOptionId !== null && (
          <button type="button" onClick={() => void c.polls.vote(commentId, null).then(() => setPicked(null))}>
            {c.t('POLL_REMOVE_VOTE')}
          </button>
        )}
        <span class="meta">
          {hidden ? c.t('POLL_RESULTS_HIDDEN') : c.t('VOTES', { count: total })}
          {isClosed && ` · ${c.t('POLL_CLOSED')}`}
        </span>
      </div>
      {error && (
        <p class="err" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
