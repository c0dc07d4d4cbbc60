/**
 * Banning a comment's author: the pre-ban summary (how many comments, under which names) is
 * read and shown first, with the options the moderator last banned with; nothing happens until
 * the ban is confirmed. A native modal dialog: it keeps the focus inside and Escape cancels.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../../shared/api.js';
import { authorOf } from '../model/actions.js';
import { BanActions, BanOptionFields, banQuery, DEFAULT_BAN_OPTIONS, type BanOptions } from '../ban-options/index.js';
import { type Strings, t } from '../model/strings.js';
import type { BanChangelog, ModComment } from '../model/types.js';


export interface BanDialogProps {
  strings: Strings;
  api: Api;
  base: string;
  comment: ModComment;
  onBanned(changelog: BanChangelog, options: { deleteAll: boolean }): void;
  onClose(): void;
  onError(reason: string): void;
  /** Called before each ban request: its changes, heard back live, are this page's own. */
  onActing(): void;
}

interface Summary {
  count: number;
  usernames: string[];
}

export function BanDialog({ strings, api, base, comment, onBanned, onClose, onError, onActing }: BanDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [options, setOptions] = useState<BanOptions>(DEFAULT_BAN_OPTIONS);
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
        setOptions((o) => ({ ...o, banEmail: p.preferences?.shouldBanEmail === true, shadow: p.preferences?.lastBanType === 'shadow' }));
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
    const query = banQuery(options);
    try {
      onActing();
      const answer = await api.call<{ changelog: BanChangelog }>('POST', `${base}/ban-user/from-comment/${comment._id}`, query);
      ref.current?.close();
      onBanned(answer.changelog, { deleteAll: options.deleteAll });
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
        <BanOptionFields strings={strings} options={options} onChange={setOptions} />
        <BanActions strings={strings} ready={!busy && summary !== null} onCancel={() => ref.current?.close()} />
      </form>
    </dialog>
  );
}
