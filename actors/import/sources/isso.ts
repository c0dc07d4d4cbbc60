/**
 * Isso: its SQLite database file (`threads`, `comments`), read with sql.js (SQLite compiled to
 * WebAssembly: no native binary to download). The whole file is loaded, as SQLite needs; rows
 * are then stepped through one at a time. Modes: 1 accepted, 2 waiting for moderation,
 * 4 deleted. Votes are counts (`likes`, `dislikes`); who voted is a Bloom filter, not a list.
 */
import initSqlJs from 'sql.js';
import { readWhole } from '../file-input.js';
import { type ImportSource, isoDate, type SourceRecord } from '../records.js';

type Row = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/** The records of an Isso database file. */
export async function issoSource(path: string): Promise<ImportSource> {
  const bytes = await readWhole(path);
  const SQL = await initSqlJs();
  let db: InstanceType<typeof SQL.Database>;
  try {
    db = new SQL.Database(bytes);
    db.exec('SELECT 1 FROM threads LIMIT 1; SELECT 1 FROM comments LIMIT 1');
  } catch (err) {
    throw new Error(`not an Isso database: ${(err as Error).message}`);
  }
  async function* records(): AsyncGenerator<SourceRecord> {
    try {
      const threads = db.prepare('SELECT id, uri, title FROM threads ORDER BY id');
      while (threads.step()) {
        const row = threads.getAsObject() as Row;
        const uri = text(row['uri']);
        yield { kind: 'thread', thread: { sourceId: text(row['id']), url: uri === '' ? null : uri, title: text(row['title']) || null, identifier: uri || null, isClosed: false, isDeleted: false } };
      }
      threads.free();
      const comments = db.prepare('SELECT tid, id, parent, created, mode, text, author, email, website, likes, dislikes FROM comments ORDER BY id');
      while (comments.step()) {
        const row = comments.getAsObject() as Row;
        const sourceId = text(row['id']);
        const created = typeof row['created'] === 'number' ? isoDate(Math.round(row['created'] * 1000)) : null;
        if (created === null) {
          yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'no valid created time' } };
          continue;
        }
        const mode = Number(row['mode']);
        const parent = row['parent'] === null || row['parent'] === undefined ? '' : text(row['parent']);
        yield {
          kind: 'comment',
          comment: {
            sourceId,
            threadId: text(row['tid']),
            parentSourceId: parent === '' ? null : parent,
            authorName: text(row['author']) || 'Anonymous',
            authorEmail: text(row['email']) || null,
            authorLink: text(row['website']) || null,
            authorAvatar: null,
            date: created,
            html: null,
            text: typeof row['text'] === 'string' ? row['text'] : '',
            approved: mode === 1,
            spam: false,
            deleted: mode === 4,
            pinned: false,
            voters: null,
            votesUp: Number(row['likes']) || 0,
            votesDown: Number(row['dislikes']) || 0,
          },
        };
      }
      comments.free();
    } finally {
      db.close();
    }
  }
  return { records: records(), bytesRead: () => bytes.length };
}
