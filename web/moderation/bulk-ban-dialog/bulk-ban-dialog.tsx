/**
 * Banning the authors of the selected comments: the bulk pre-ban summary
 * (`bulk-pre-ban-summary`: how many comments they wrote in all, from how many accounts and
 * email addresses) is read and shown first, with the ban's options; nothing happens until Ban
 * is pressed. Then each author is banned once (`ban-user/from-comment` on one of their
 * comments), and every ban's change log is handed back so each can be undone.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../../shared/api.js';
import { type Strings, t } from '../model/strings.js';
import type { BanChangelog, ModComment } from '../model/types.js';

const DAY = 24 * 60 * 60 * 1000;
const DURATIONS = [
  { id: 'forever', label: 'BAN_FOREVER', ms: 0 },
  { id: 'day', label: 'BAN_DAY', ms: DAY },
  { id: 'week', label: 'BAN_WEEK', ms: 7 * DAY },
  { id: 'month', label: 'BAN_MONTH', ms: 30 * DAY },
] as const;

export interface BulkBanDialogProps {
  strings: Strings;
  api: Api;
  base: string;
  comments: readonly ModComment[];
  /** Done: the change log of each ban made, and how many failed. */
  onBanned(changelogs: BanChangelog[], failed: number): void;
  onClose(): void;
  onError(reason: string): void;
}

interface BulkSummary {
  totalRelatedCommentCount: number;
  emails: string[];
  userIds: string[];
}

/** One comment per author (by account, else widget session, else the comment alone). */
export function oneCommentPerAuthor(comments: readonly ModComment[]): ModComment[] {
  const seen = new Set<string>();
  return comments.filter((c) => {
    const key = c.userId ? `u:${c.userId}` : c.anonUserId ? `a:${c.anonUserId}` : `c:${c._id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function BulkBanDialog({ strings, api, base, comments, onBanned, onClose, onError }: BulkBanDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [summary, setSummary] = useState<BulkSummary | null>(null);
  const [banEmail, setBanEmail] = useState(false);
  const [shadow, setShadow] = useState(false);
  const [deleteAll, setDeleteAll] = useState(false);
  const [duration, setDuration] = useState<string>('forever');
  const [busy, setBusy] = useState(false);
  const authors = oneCommentPerAuthor(comments);

  useEffect(() => {
    ref.current?.showModal();
    let live = true;
    api.call<BulkSummary>('POST', `${base}/bulk-pre-ban-summary`, {}, { commentIds: comments.map((c) => c._id) }).then(
      (s) => live && setSummary(s),
      (err: Error) => live && onError(err.message),
    );
    return () => {
      live = false;
    };
  }, []);

  const confirm = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const ms = DURATIONS.find((d) => d.id === duration)!.ms;
    const changelogs: BanChangelog[] = [];
    let failed = 0;
    for (const c of authors) {
      try {
        const answer = await api.call<{ changelog: BanChangelog }>('POST', `${base}/ban-user/from-comment/${c._id}`, {
          banEmail,
          isShadowBan: shadow,
          deleteAllUsersComments: deleteAll,
          bannedUntil: ms === 0 ? undefined : new Date(Date.now() + ms).toISOString(),
        });
        changelogs.push(answer.changelog);
      } catch {
        failed++;
      }
    }
    ref.current?.close();
    onBanned(changelogs, failed);
  };

  return (
    <dialog ref={ref} aria-labelledby="bulk-ban-title" aria-describedby="bulk-ban-summary" onClose={onClose}>
      <form method="dialog" onSubmit={confirm}>
        <h2 id="bulk-ban-title">{t(strings, 'BULK_BAN_TITLE', { count: authors.length })}</h2>
        <p id="bulk-ban-summary" role="status">
          {summary === null
            ? t(strings, 'LOADING')
            : t(strings, 'BULK_BAN_SUMMARY', { selected: comments.length, total: summary.totalRelatedCommentCount, users: summary.userIds.length, emails: summary.emails.length })}
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
