/** Actions on the selection: select all shown, approve, spam, review or remove every selected comment, or ban their authors. */
import { type Strings, t } from '../model/strings.js';

/** The bulk actions: the key of the one-comment action each runs, and its label. */
export const BULK = [
  { key: 'a', label: 'APPROVE_SELECTED' },
  { key: 's', label: 'SPAM_SELECTED' },
  { key: 'v', label: 'REVIEW_SELECTED' },
  { key: 'r', label: 'REMOVE_SELECTED' },
] as const;

export interface BulkBarProps {
  strings: Strings;
  shown: number;
  selected: number;
  busy: boolean;
  onSelectAll(all: boolean): void;
  onRun(key: string): void;
  /** Opens the bulk ban (its summary first). */
  onBanAuthors(): void;
}

export function BulkBar({ strings, shown, selected, busy, onSelectAll, onRun, onBanAuthors }: BulkBarProps) {
  const all = shown > 0 && selected === shown;
  return (
    <div role="toolbar" aria-label={t(strings, 'BULK_ACTIONS')} class="bulk">
      <label>
        <input
          type="checkbox"
          checked={all}
          ref={(el) => {
            if (el) el.indeterminate = selected > 0 && !all;
          }}
          disabled={shown === 0}
          onChange={(e) => onSelectAll((e.currentTarget as HTMLInputElement).checked)}
        />{' '}
        {t(strings, 'SELECT_ALL')}
      </label>
      <span class="muted" aria-live="polite">
        {t(strings, 'SELECTED_COUNT', { count: selected })}
      </span>
      {BULK.map((b) => (
        <button type="button" disabled={busy || selected === 0} onClick={() => onRun(b.key)}>
          {t(strings, b.label)}
        </button>
      ))}
      <button type="button" class="danger" disabled={busy || selected === 0} onClick={onBanAuthors}>
        {t(strings, 'BAN_SELECTED')}
      </button>
    </div>
  );
}
