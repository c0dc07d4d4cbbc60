/**
 * The options of a ban (email too, shadow, remove all their comments, how long), shared by the
 * single and the bulk ban dialogs, and the parameters of `ban-user/from-comment` they make.
 */
import type { Query } from '../../shared/api.js';
import { type Strings, t } from '../model/strings.js';

const DAY = 24 * 60 * 60 * 1000;
const DURATIONS = [
  { id: 'forever', label: 'BAN_FOREVER', ms: 0 },
  { id: 'day', label: 'BAN_DAY', ms: DAY },
  { id: 'week', label: 'BAN_WEEK', ms: 7 * DAY },
  { id: 'month', label: 'BAN_MONTH', ms: 30 * DAY },
] as const;

/** What the moderator chose. */
export interface BanOptions {
  banEmail: boolean;
  shadow: boolean;
  deleteAll: boolean;
  duration: (typeof DURATIONS)[number]['id'];
}

/** A ban for ever, of the account only, keeping the comments. */
export const DEFAULT_BAN_OPTIONS: BanOptions = { banEmail: false, shadow: false, deleteAll: false, duration: 'forever' };

/** The parameters of `ban-user/from-comment` for these options; the end of a timed ban counts from `now`. */
export function banQuery(options: BanOptions, now = Date.now()): Query {
  const ms = DURATIONS.find((d) => d.id === options.duration)!.ms;
  return {
    banEmail: options.banEmail,
    isShadowBan: options.shadow,
    deleteAllUsersComments: options.deleteAll,
    bannedUntil: ms === 0 ? undefined : new Date(now + ms).toISOString(),
  };
}

export interface BanOptionFieldsProps {
  strings: Strings;
  options: BanOptions;
  onChange(next: BanOptions): void;
}

/** The labelled controls of the options. */
export function BanOptionFields({ strings, options, onChange }: BanOptionFieldsProps) {
  const flag = (key: 'banEmail' | 'shadow' | 'deleteAll', label: string) => (
    <label class="option">
      <input type="checkbox" checked={options[key]} onChange={(e) => onChange({ ...options, [key]: (e.currentTarget as HTMLInputElement).checked })} /> {t(strings, label)}
    </label>
  );
  return (
    <>
      {flag('banEmail', 'BAN_EMAIL')}
      {flag('shadow', 'BAN_SHADOW')}
      {flag('deleteAll', 'BAN_DELETE_ALL')}
      <label class="option">
        {t(strings, 'BAN_DURATION')}{' '}
        <select value={options.duration} onChange={(e) => onChange({ ...options, duration: (e.currentTarget as HTMLSelectElement).value as BanOptions['duration'] })}>
          {DURATIONS.map((d) => (
            <option value={d.id}>{t(strings, d.label)}</option>
          ))}
        </select>
      </label>
    </>
  );
}

export interface BanActionsProps {
  strings: Strings;
  /** Whether Ban may be pressed (the summary is shown and nothing is under way). */
  ready: boolean;
  onCancel(): void;
}

/** Ban and Cancel. */
export function BanActions({ strings, ready, onCancel }: BanActionsProps) {
  return (
    <div class="actions">
      <button type="submit" class="danger" disabled={!ready}>
        {t(strings, 'BAN_CONFIRM')}
      </button>
      <button type="button" onClick={onCancel}>
        {t(strings, 'CANCEL')}
      </button>
    </div>
  );
}
