/**
 * What every import source yields: threads, comments and problems in one normalised form, so
 * that the writer (import-run.ts) knows nothing of the formats. A source streams: it yields
 * records as it reads them and holds no more than the record being read.
 */

/** The formats an import reads. */
export const IMPORT_FORMATS = ['disqus', 'wordpress', 'commento', 'isso', 'remark42', 'native'] as const;
/** One of `IMPORT_FORMATS`. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A discussion of the source: one page of ours (or part of one, when several share a URL). */
export interface ImportThread {
  readonly sourceId: string;
  /** The page's address as the source knows it; null when it gave none. */
  readonly url: string | null;
  readonly title: string | null;
  /** The source's own page identifier (Disqus `<id>`), often empty. */
  readonly identifier: string | null;
  readonly isClosed: boolean;
  readonly isDeleted: boolean;
}

/** A vote the source kept per voter: `voter` is the source's id of the voter. */
export interface ImportVoter {
  readonly voter: string;
  readonly direction: 1 | -1;
}

/** A comment of the source. */
export interface ImportComment {
  readonly sourceId: string;
  readonly threadId: string;
  readonly parentSourceId: string | null;
  readonly authorName: string;
  readonly authorEmail: string | null;
  readonly authorLink: string | null;
  readonly authorAvatar: string | null;
  /** ISO date-time. */
  readonly date: string;
  /** The comment as HTML (sanitised before it is stored), or null when the source keeps text only. */
  readonly html: string | null;
  /** The comment as text (markdown or plain): the stored `comment`. */
  readonly text: string;
  readonly approved: boolean;
  readonly spam: boolean;
  readonly deleted: boolean;
  readonly pinned: boolean;
  /** Votes per voter where the source keeps them, else counts only. */
  readonly voters: readonly ImportVoter[] | null;
  readonly votesUp: number;
  readonly votesDown: number;
}

/** A record of the source that cannot be imported (or imported only in part), and why. */
export interface ImportProblem {
  readonly record: 'thread' | 'comment' | 'document' | 'file';
  readonly sourceId: string | null;
  readonly reason: string;
  /** Set when the record is still imported (changed as the reason says), not skipped. */
  readonly imported?: boolean;
}

/** What a source yields, in file order. Threads come before the comments that name them. */
export type SourceRecord =
  | { readonly kind: 'thread'; readonly thread: ImportThread }
  | { readonly kind: 'comment'; readonly comment: ImportComment }
  | { readonly kind: 'problem'; readonly problem: ImportProblem };

/** A source: the records of one export file. `bytesRead` tells progress against the file's size. */
export interface ImportSource {
  readonly records: AsyncIterable<SourceRecord>;
  bytesRead(): number;
}

/** A date of the source as an ISO date-time, or null when it is none. */
export function isoDate(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Text of an HTML comment: tags dropped, line breaks kept, common entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|iframe|object|embed)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|quot|#39|apos|nbsp|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ', amp: '&' })[name] ?? '')
    .trim();
}
