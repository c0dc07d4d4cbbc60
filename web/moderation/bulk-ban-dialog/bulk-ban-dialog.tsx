/**
 * Banning the authors of the selected comments: the bulk pre-ban summary
 * (`bulk-pre-ban-summary`: how many comments they wrote in all, from how many accounts and
 * email addresses) is read and shown first, with the ban's options; nothing happens until Ban
 * is pressed. Then each author is banned once (`ban-user/from-comment` on one of their
 * comments), and every ban's change log is handed back so each can be undone.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../../shared/api.js';
import { BanActions, BanOptionFields, banQuery, DEFAULT_BAN_OPTIONS, type BanOptions } from '../ban-options/index.js';
import { type Strings, t } from '../model/strings.js';
import type { BanChangelog, ModComment } from '../model/types.js';


export interface BulkBanDialogProps {
  strings: Strings;
  api: Api;
  base: string;
  comments: readonly ModComment[];
  /** Done: the change log of each ban made, and how many failed. */
  onBanned(changelogs: BanChangelog[], failed: number): void;
  onClose(): void;
  onError(reason: string): void;
  /** Called before each ban request: its changes, heard back live, are this page's own. */
  onActing(): void;
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

export function BulkBanDialog({ strings, api, base, comments, onBanned, onClose, onError, onActing }: BulkBanDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [summary, setSummary] = useState<BulkSummary | null>(null);
  const [options, setOptions] = useState<BanOptions>(DEFAULT_BAN_OPTIONS);
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
    const query = banQuery(options);
    const changelogs: BanChangelog[] = [];
    let failed = 0;
    for (const c of authors) {
      try {
        onActing();
        const answer = await api.call<{ changelog: BanChangelog }>('POST', `${base}/ban-user/from-comment/${c._id}`, query);
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
        <BanOptionFields strings={strings} options={options} onChange={setOptions} />
        <BanActions strings={strings} ready={!busy && summary !== null} onCancel={() => ref.current?.close()} />
      </form>
    </dialog>
  );
}
