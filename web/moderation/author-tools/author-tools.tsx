/**
 * Tools on the focused comment in the context panel: editing its text (`get-comment-text`,
 * `set-comment-text`), and for an author with an account their manual badges (`get-manual-badges`,
 * `get-manual-badges-for-user`, `award-badge`, `remove-badge`) and trust factor
 * (`get-trust-factor`, `set-trust-factor`). Every control is a labelled form field or button, so
 * the keyboard reaches all of it; a refusal is shown in words beside the tool (`role="alert"`).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../shared/api.js';
import { type Strings, t } from '../model/strings.js';
import type { ModComment } from '../model/types.js';

export interface AuthorToolsProps {
  strings: Strings;
  api: Api;
  base: string;
  comment: ModComment;
  /** Changes the comment as the page shows it (after an edit). */
  onEdited(patch: Partial<ModComment>): void;
  /** Announces a result politely. */
  announce(text: string): void;
  /** An action of this page is starting (its live echo is not announced as another moderator's). */
  onActing(): void;
}

interface Badge {
  _id: string;
  displayLabel?: string | null;
  description?: string | null;
}

interface HeldBadge {
  badgeId: string;
  displayLabel?: string | null;
  description?: string | null;
}

const labelOf = (b: { displayLabel?: string | null; description?: string | null }, fallback: string) => b.displayLabel || b.description || fallback;

export function AuthorTools({ strings, api, base, comment, onEdited, announce, onActing }: AuthorToolsProps) {
  const [error, setError] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [catalog, setCatalog] = useState<Badge[]>([]);
  const [held, setHeld] = useState<HeldBadge[]>([]);
  const [chosen, setChosen] = useState('');
  const [trust, setTrust] = useState<{ manual: number | null; auto: number } | null>(null);
  const [trustDraft, setTrustDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const id = comment._id;
  const userId = comment.userId ?? null;

  const fail = (err: unknown) => setError(t(strings, 'FAILED', { reason: (err as Error).message }));

  useEffect(() => {
    setError('');
    setEditing(null);
    setHeld([]);
    setTrust(null);
    if (userId === null) return;
    let live = true;
    api.call<{ badges: Badge[] }>('GET', `${base}/get-manual-badges`).then((a) => live && setCatalog(a.badges), () => undefined);
    api.call<{ badges: HeldBadge[] }>('GET', `${base}/get-manual-badges-for-user`, { commentId: id }).then((a) => live && setHeld(a.badges), () => undefined);
    api.call<{ manualTrustFactor?: number; autoTrustFactor: number }>('GET', `${base}/get-trust-factor`, { userId }).then((a) => {
      if (!live) return;
      setTrust({ manual: a.manualTrustFactor ?? null, auto: a.autoTrustFactor });
      setTrustDraft(a.manualTrustFactor === undefined ? '' : String(a.manualTrustFactor));
    }, fail);
    return () => {
      live = false;
    };
  }, [id]);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const startEdit = () =>
    run(async () => {
      const answer = await api.call<{ comment: string }>('GET', `${base}/get-comment-text/${id}`);
      setEditing(answer.comment);
      setTimeout(() => document.getElementById('edit-text')?.focus(), 0);
    });

  const saveEdit = (e: Event) => {
    e.preventDefault();
    const text = editing ?? '';
    if (text.trim() === '') {
      setError(t(strings, 'EDIT_EMPTY'));
      return;
    }
    onActing();
    void run(async () => {
      const answer = await api.call<{ newCommentTextHTML: string }>('POST', `${base}/set-comment-text/${id}`, {}, { comment: text });
      setEditing(null);
      onEdited({ commentHTML: answer.newCommentTextHTML });
      announce(t(strings, 'DONE_EDITED'));
      document.getElementById('edit-start')?.focus();
    });
  };

  const award = (e: Event) => {
    e.preventDefault();
    if (chosen === '') return;
    void run(async () => {
      await api.call('PUT', `${base}/award-badge`, { badgeId: chosen, commentId: id });
      const answer = await api.call<{ badges: HeldBadge[] }>('GET', `${base}/get-manual-badges-for-user`, { commentId: id });
      setHeld(answer.badges);
      announce(t(strings, 'DONE_BADGE_AWARDED', { badge: labelOf(catalog.find((b) => b._id === chosen) ?? { displayLabel: chosen }, chosen) }));
    });
  };

  const remove = (b: HeldBadge) =>
    run(async () => {
      await api.call('PUT', `${base}/remove-badge`, { badgeId: b.badgeId, commentId: id });
      setHeld((list) => list.filter((h) => h.badgeId !== b.badgeId));
      announce(t(strings, 'DONE_BADGE_REMOVED', { badge: labelOf(b, b.badgeId) }));
    });

  const saveTrust = (e: Event) => {
    e.preventDefault();
    const value = Number(trustDraft);
    if (trustDraft.trim() === '' || !Number.isFinite(value) || value < 0 || value > 100) {
      setError(t(strings, 'TRUST_INVALID'));
      return;
    }
    void run(async () => {
      await api.call('PUT', `${base}/set-trust-factor`, { userId: userId!, trustFactor: String(value) });
      setTrust((tr) => ({ manual: value, auto: tr?.auto ?? 0 }));
      announce(t(strings, 'DONE_TRUST', { value }));
    });
  };

  return (
    <div class="author-tools">
      <h3>{t(strings, 'EDIT_TITLE')}</h3>
      {editing === null ? (
        <button type="button" id="edit-start" disabled={busy || comment.isDeleted === true} onClick={() => void startEdit()}>
          {t(strings, 'EDIT_TEXT')}
        </button>
      ) : (
        <form onSubmit={saveEdit}>
          <label for="edit-text">{t(strings, 'EDIT_LABEL')}</label>
          <textarea id="edit-text" rows={5} value={editing} onInput={(e) => setEditing((e.currentTarget as HTMLTextAreaElement).value)} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {t(strings, 'EDIT_SAVE')}
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              {t(strings, 'CANCEL')}
            </button>
          </div>
        </form>
      )}
      <h3>{t(strings, 'BADGES')}</h3>
      {userId === null ? (
        <p class="muted">{t(strings, 'NO_ACCOUNT')}</p>
      ) : (
        <div>
          {held.length === 0 ? (
            <p class="muted">{t(strings, 'NO_BADGES')}</p>
          ) : (
            <ul class="badges" aria-label={t(strings, 'BADGES_HELD')}>
              {held.map((b) => (
                <li>
                  {labelOf(b, b.badgeId)}{' '}
                  <button type="button" disabled={busy} onClick={() => void remove(b)}>
                    {t(strings, 'BADGE_REMOVE', { badge: labelOf(b, b.badgeId) })}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {catalog.length === 0 ? (
            <p class="muted">{t(strings, 'NO_MANUAL_BADGES')}</p>
          ) : (
            <form onSubmit={award}>
              <label for="badge-choice">{t(strings, 'BADGE_CHOOSE')}</label>{' '}
              <select id="badge-choice" value={chosen} onChange={(e) => setChosen((e.currentTarget as HTMLSelectElement).value)}>
                <option value="">—</option>
                {catalog.map((b) => (
                  <option value={b._id}>{labelOf(b, b._id)}</option>
                ))}
              </select>{' '}
              <button type="submit" disabled={busy || chosen === ''}>
                {t(strings, 'BADGE_AWARD')}
              </button>
            </form>
          )}
          <h3>{t(strings, 'TRUST')}</h3>
          {trust !== null && <p>{t(strings, 'TRUST_AUTO', { value: trust.auto })}</p>}
          {/* Checked here, so an out-of-range value is refused in words rather than by the browser's bubble. */}
          <form noValidate onSubmit={saveTrust}>
            <label for="trust-value">{t(strings, 'TRUST_LABEL')}</label>{' '}
            <input id="trust-value" type="number" min={0} max={100} step={1} value={trustDraft} onInput={(e) => setTrustDraft((e.currentTarget as HTMLInputElement).value)} />{' '}
            <button type="submit" disabled={busy}>
              {t(strings, 'TRUST_SAVE')}
            </button>
          </form>
        </div>
      )}
      {error !== '' && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}
