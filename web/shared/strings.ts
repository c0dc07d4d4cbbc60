/** The widget's interface strings: the server's catalog, overridden by the embed's `translations`. */
import { en } from '../../translations/en.js';

/** Strings by key. */
export type Strings = Readonly<Record<string, string>>;

/**
 * Used until the server's strings arrive (and if they never do): the server's own English
 * catalog, of the components the widget reads.
 */
export const FALLBACK: Strings = { ...en['comment-ui'], ...en['comment-ui-notifications-list'], ...en['comment-ui-online-users'], ...en['comment-ui-moderation'] };

/** The string for `key` with `{name}` placeholders filled. */
export function format(strings: Strings, key: string, values: Record<string, string | number> = {}): string {
  const text = strings[key] ?? FALLBACK[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The browser's locale in the server's form (`de_de`). */
export function browserLocale(): string {
  return (navigator.language || 'en').toLowerCase().replace('-', '_');
}
