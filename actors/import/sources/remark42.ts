/**
 * Remark42 backup (usually gzipped): JSON lines, a line of metadata (`version`, `users`,
 * `posts`) then one comment per line, each with its `locator` (site and page URL), its parent
 * (`pid`), HTML `text` and markdown `orig`, and `votes` per voter. Read a line at a time.
 */
import { lines, openInput } from '../file-input.js';
import { htmlToText, type ImportSource, type ImportVoter, isoDate, type SourceRecord } from '../records.js';

interface Remark42Comment {
  id?: string;
  pid?: string;
  text?: string;
  orig?: string;
  user?: { name?: string; id?: string; picture?: string };
  locator?: { site?: string; url?: string };
  votes?: Record<string, boolean>;
  time?: string;
  pin?: boolean;
  delete?: boolean;
  title?: string;
}

/** The records of a Remark42 backup file. */
export async function remark42Source(path: string): Promise<ImportSource> {
  const input = await openInput(path);
  async function* records(): AsyncGenerator<SourceRecord> {
    // Threads are named by page URL: one entry per page seen, not per comment.
    const threads = new Set<string>();
    let lineNo = 0;
    for await (const line of lines(input)) {
      lineNo++;
      if (line.trim() === '') continue;
      let c: Remark42Comment & { version?: unknown };
      try {
        c = JSON.parse(line) as typeof c;
      } catch {
        yield { kind: 'problem', problem: { record: 'comment', sourceId: `line ${lineNo}`, reason: 'not a JSON line' } };
        continue;
      }
      if (c.version !== undefined && c.id === undefined) continue;
      const sourceId = typeof c.id === 'string' ? c.id : '';
      if (sourceId === '') {
        yield { kind: 'problem', problem: { record: 'comment', sourceId: `line ${lineNo}`, reason: 'comment without an id' } };
        continue;
      }
      const url = c.locator?.url ?? '';
      if (url === '') {
        yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'comment without a locator url' } };
        continue;
      }
      if (!threads.has(url)) {
        threads.add(url);
        yield { kind: 'thread', thread: { sourceId: url, url, title: c.title ?? null, identifier: url, isClosed: false, isDeleted: false } };
      }
      const date = isoDate(c.time);
      if (date === null) {
        yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'no valid time' } };
        continue;
      }
      const voters: ImportVoter[] = [];
      for (const [voter, up] of Object.entries(c.votes ?? {})) voters.push({ voter, direction: up ? 1 : -1 });
      const html = typeof c.text === 'string' ? c.text : '';
      yield {
        kind: 'comment',
        comment: {
          sourceId,
          threadId: url,
          parentSourceId: c.pid ? c.pid : null,
          authorName: c.user?.name || 'Anonymous',
          authorEmail: null,
          authorLink: null,
          authorAvatar: c.user?.picture || null,
          date,
          html,
          text: typeof c.orig === 'string' && c.orig !== '' ? c.orig : htmlToText(html),
          approved: true,
          spam: false,
          deleted: c.delete === true,
          pinned: c.pin === true,
          voters,
          votesUp: voters.filter((v) => v.direction > 0).length,
          votesDown: voters.filter((v) => v.direction < 0).length,
        },
      };
    }
  }
  return { records: records(), bytesRead: input.bytesRead };
}
