/**
 * Which page a source thread becomes. The rule is the operator's choice:
 * - `path` (the default): the path of the thread's URL, without host, query, fragment or
 *   trailing slash (`https://blog.example/posts/a/?utm=x` is `/posts/a`), so the http and
 *   https, www and bare, and tracking-parameter copies of one page (Disqus makes a thread for
 *   each) are merged into one page;
 * - `identifier`: the source's own page identifier (Disqus `<id>`, the `page_identifier` the
 *   site gave its embed), falling back to the path when the thread has none (often the case:
 *   the trap of the empty thread id, where an importer keyed on it puts every such thread on
 *   one page).
 */
import type { ImportThread } from './records.js';

/** The rules of `urlIdOf`. */
export const MATCH_RULES = ['path', 'identifier'] as const;
/** One of `MATCH_RULES`. */
export type MatchRule = (typeof MATCH_RULES)[number];

/** The URL's path as a urlId ('' when the URL has none). */
export function pathOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/, 1)[0]!;
  }
  try {
    path = decodeURI(path);
  } catch {
    // Kept as written: a stray % is part of the name.
  }
  if (path.length > 1) path = path.replace(/\/+$/, '');
  return path === '' ? '' : path.startsWith('/') ? path : `/${path}`;
}

/** The thread's page (urlId) under `rule`, or null when it names none. */
export function urlIdOf(thread: ImportThread, rule: MatchRule): string | null {
  if (rule === 'identifier' && thread.identifier !== null && thread.identifier.trim() !== '') return thread.identifier.trim().slice(0, 4096);
  const path = thread.url === null ? '' : pathOf(thread.url);
  return path === '' ? null : path.slice(0, 4096);
}
