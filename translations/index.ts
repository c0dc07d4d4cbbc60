/**
 * The catalogs by language, and how a `locale` finds one: `de_de`, `de-DE`, `DE` → `de`;
 * an unknown language gets English. A key missing from a language falls back to English.
 */
import { ar } from './ar.js';
import type { Catalog, Strings } from './catalog.js';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { ja } from './ja.js';

export type { Catalog, Strings } from './catalog.js';

/** Languages with a catalog. */
export const CATALOGS: Readonly<Record<string, Catalog>> = { en, de, fr, es, ar, ja };

/** The namespace the widget asks for (`/translations/widgets/<component>`). */
export const WIDGET_NAMESPACE = 'widgets';

/** The components the catalogs have strings for. */
export const COMPONENTS: readonly string[] = Object.keys(en);

/** The language of a locale with a catalog, else `en`. */
export function languageOf(locale: string | undefined): string {
  const language = (locale ?? '').trim().toLowerCase().split(/[_-]/, 1)[0] ?? '';
  return Object.hasOwn(CATALOGS, language) ? language : 'en';
}

const merged = new Map<string, Strings>();

/** A component's strings in a locale (English for keys the language lacks), or undefined for an unknown component. */
export function componentStrings(component: string, locale: string | undefined): Strings | undefined {
  if (!Object.hasOwn(en, component)) return undefined;
  const language = languageOf(locale);
  const key = `${language}\n${component}`;
  let strings = merged.get(key);
  if (strings === undefined) {
    strings = Object.freeze({ ...en[component], ...CATALOGS[language]![component] });
    merged.set(key, strings);
  }
  return strings;
}
