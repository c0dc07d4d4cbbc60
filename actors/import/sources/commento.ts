/**
 * Commento JSON export: `{version, comments: [...], commenters: [...]}`. One JSON document,
 * read whole (its commenters come after the comments that name them). Anonymous comments name
 * the commenter "anonymous", which has no record: they keep the name "Anonymous".
 */
import { readWhole } from '../file-input.js';
import { type ImportSource, isoDate, type SourceRecord } from '../records.js';

interface CommentoComment {
  commentHex?: string;
  domain?: string;
  url?: string;
  path?: string;
  commenterHex?: string;
  markdown?: string;
  html?: string;
  parentHex?: string;
  score?: number;
  state?: string;
  creationDate?: string;
  deleted?: boolean;
}

interface CommentoCommenter {
  commenterHex?: string;
  email?: string;
  name?: string;
  link?: string;
  photo?: string;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** The records of a Commento export file. */
export async function commentoSource(path: string): Promise<ImportSource> {
  const bytes = await readWhole(path);
  let doc: { comments?: unknown; commenters?: unknown };
  try {
    doc = JSON.parse(bytes.toString('utf8')) as typeof doc;
  } catch (err) {
    throw new Error(`not a Commento export (JSON): ${(err as Error).message}`);
  }
  if (!Array.isArray(doc.comments)) throw new Error('not a Commento export: no "comments" array');
  const commenters = new Map<string, CommentoCommenter>();
  for (const c of Array.isArray(doc.commenters) ? (doc.commenters as CommentoCommenter[]) : []) if (str(c.commenterHex) !== '') commenters.set(str(c.commenterHex), c);
  const comments = doc.comments as CommentoComment[];
  async function* records(): AsyncGenerator<SourceRecord> {
    const threads = new Set<string>();
    for (const c of comments) {
      const sourceId = str(c.commentHex);
      if (sourceId === '') {
        yield { kind: 'problem', problem: { record: 'comment', sourceId: null, reason: 'comment without a commentHex' } };
        continue;
      }
      const pagePath = str(c.url) || str(c.path);
      const threadId = `${str(c.domain)}${pagePath}`;
      if (threadId === '') {
        yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'comment names no domain or path' } };
        continue;
      }
      if (!threads.has(threadId)) {
        threads.add(threadId);
        const url = str(c.domain) === '' ? pagePath : `https://${str(c.domain)}${pagePath.startsWith('/') ? '' : '/'}${pagePath}`;
        yield { kind: 'thread', thread: { sourceId: threadId, url, title: null, identifier: pagePath, isClosed: false, isDeleted: false } };
      }
      const date = isoDate(str(c.creationDate));
      if (date === null) {
        yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'no valid creationDate' } };
        continue;
      }
      const hex = str(c.commenterHex);
      const who = commenters.get(hex);
      if (who === undefined && hex !== 'anonymous' && hex !== '') {
        yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: `commenter ${hex} has no record: imported as Anonymous`, imported: true } };
      }
      const parent = str(c.parentHex);
      const score = typeof c.score === 'number' && Number.isInteger(c.score) ? c.score : 0;
      const state = str(c.state);
      yield {
        kind: 'comment',
        comment: {
          sourceId,
          threadId,
          parentSourceId: parent === '' || parent === 'root' ? null : parent,
          authorName: str(who?.name) || 'Anonymous',
          authorEmail: str(who?.email) || null,
          authorLink: str(who?.link) === 'undefined' ? null : str(who?.link) || null,
          authorAvatar: str(who?.photo) === 'undefined' ? null : str(who?.photo) || null,
          date,
          html: str(c.html) || null,
          text: typeof c.markdown === 'string' ? c.markdown : '',
          approved: state === '' || state === 'approved',
          spam: state === 'flagged',
          deleted: c.deleted === true,
          pinned: false,
          voters: null,
          // Commento keeps the net score only.
          votesUp: Math.max(score, 0),
          votesDown: Math.max(-score, 0),
        },
      };
    }
  }
  return { records: records(), bytesRead: () => bytes.length };
}
