/**
 * Banning a comment's author: the pre-ban summary (how many comments, under which names) is
 * read and shown first, with the options the moderator last banned with; nothing happens until
 * the ban is confirmed. A native modal dialog: it keeps the focus inside and Escape cancels.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../../shared/api.js';
import { authorOf } from '../model/actions.js';
import { type Strings, t } from '../model/strings.js';
import type { BanChangelog, ModComment } from '../model/types.js';

const DAY = 24 * 60 * 60 * 1000;
const DURATIONS = [
  { id: 'forever', label: 'BAN_FOREVER', ms: 0 },
  { id: 'day', label: 'BAN_DAY', ms: DAY },
  { id: 'week', label: 'BAN_WEEK', ms: 7 * DAY },
  { id: 'month', label: 'BAN_MONTH', ms: 30 * DAY },
] as const;

export interface BanDialogProps {
  strings: Strings;
  api: Api;
  base: string;
  comment: ModComment;
  onBanned(changelog: BanChangelog, options: { deleteAll: boolean }): void;
  onClose(): void;
  onError(reason: string): void;
}

interface Summary {
  count: number;
  usernames: string[];
}

export function BanDialog({ strings, api, base, comment, onBanned, onClose, onError }: BanDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [banEmail, setBanEmail] = useState(false);
  const [shadow, setShadow] = useState(false);
  const [deleteAll, setDeleteAll] = useState(false);
  const [duration, setDuration] = useState<string>('forever');
  const [busy, setBusy] = useState(false);
  const name = authorOf(comment, t(strings, 'ANONYMOUS'));

  useEffect(() => {
    ref.current?.showModal();
    let live = true;
    Promise.all([
      api.call<Summary & Record<string, unknown>>('GET', `${base}/pre-ban-summary/${comment._id}`),
      api.call<{ preferences: { shouldBanEmail?: boolean; lastBanType?: string } | null }>('GET', `${base}/user-ban-preference`).catch(() => ({ preferences: null })),
    ]).then(
      ([s, p]) => {
        if (!live) return;
        setSummary({ count: s.count, usernames: s.usernames });
        setBanEmail(p.preferences?.shouldBanEmail === true);
        setShadow(p.preferences?.lastBanType === 'shadow');
      },
      (err: Error) => live && onError(err.message),
    );
    return () => {
      live = false;
    };
  }, [comment._id]);

  const confirm = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const ms = DURATIONS.find((d) => d.id === duration)!.ms;
    try {
      const answer = await api.call<{ changelog: BanChangelog }>('POST', `${base}/ban-user/from-comment/${comment._id}`, {
        banEmail,
        isShadowBan: shadow,
        deleteAllUsersComments: deleteAll,
        bannedUntil: ms === 0 ? undefined : new Date(Date.now() + ms).toISOString(),
      });
      ref.current?.close();
      onBanned(answer.changelog, { deleteAll });
    } catch (err) {
      setBusy(false);
      onError((err as Error).message);
    }
  };

  return (
    <dialog ref={ref} aria-labelledby="ban-title" aria-describedby="ban-summary" onClose={onClose}>
      <form method="dialog" onSubmit={confirm}>
        <h2 id="ban-title">{t(strings, 'BAN_TITLE', { name })}</h2>
        <p id="ban-summary" role="status">
          {summary === null ? t(strings, 'LOADING') : t(strings, 'BAN_SUMMARY', { count: summary.count, names: summary.usernames.join(', ') || name })}
        </p>
        <label class="option">
          <input type="checkbox" checked={banEmail} onChange={(e) => setBanEmail((e.currentTarget as HTMLInputElement).checked)} /> {t(strings, 'BAN_EMAIL')}
        </label>
        <label class="option">
          <input type="checkbox" checked={shadow} onChange={(e) => setShadow((e.currentTarget as HTMLInputElement).checked)} /> {t(strings, 'BAN_SHADOW')}
        </label>
        <label class="option">
          <input type="checkbox" checked={deleteAll} onChange={(e) => setDeleteAll((e.currentTarget as HTMLInputElement).checked)} /> {t(strings, 'BAN_DELETE_ALL')}
        </label>
        <label class="option">
          {t(strings, 'BAN_DURATION')}{' '}
          <select value={duration} onChange={(e) => setDuration((e.currentTarget as HTMLSelectElement).value)}>
            {DURATIONS.map((d) => (
              <option value={d.id}>{t(strings, d.label)}</option>
            ))}
          </select>
        </label>
        <div class="actions">
          <button type="submit" class="danger" disabled={busy || summary === null}>
            {t(strings, 'BAN_CONFIRM')}
          </button>
          <button type="button" onClick={() => ref.current?.close()}>
            {t(strings, 'CANCEL')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
