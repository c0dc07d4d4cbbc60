/** Relative dates ("5 min ago"), with the absolute date in the element's `title` and `datetime`. */
import { format, type Strings } from './strings.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "2 d ago", else the date in the reader's locale. */
export function relativeDate(strings: Strings, date: Date, now: number, locale: string): string {
  const age = Math.max(0, now - date.getTime());
  if (age < MINUTE) return format(strings, 'JUST_NOW');
  if (age < HOUR) return format(strings, 'MINUTES_AGO', { count: Math.floor(age / MINUTE) });
  if (age < DAY) return format(strings, 'HOURS_AGO', { count: Math.floor(age / HOUR) });
  if (age < 30 * DAY) return format(strings, 'DAYS_AGO', { count: Math.floor(age / DAY) });
  try {
    return date.toLocaleDateString(locale.replace('_', '-'));
  } catch {
    return date.toISOString().slice(0, 10);
  }
}
