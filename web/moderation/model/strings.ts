/** The page's strings: the catalog the server inlined in the shell, in the reader's language. */

/** Strings by key. */
export type Strings = Readonly<Record<string, string>>;

/** The string for `key` with `{name}` placeholders filled (the key itself if the catalog lacks it). */
export function t(strings: Strings, key: string, values: Record<string, string | number> = {}): string {
  return (strings[key] ?? key).replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** A date as the reader's locale writes it. */
export function shortDate(iso: string | null, locale: string): string {
  if (iso === null) return '';
  const d = new Date(iso);
  try {
    return d.toLocaleString(locale);
  } catch {
    return d.toISOString();
  }
}
