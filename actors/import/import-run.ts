/**
 * Runs an import, in two passes. The first reads the source's records, matches threads to
 * pages (match.ts) and sorts the comments out by page into a spool on disk (import-spool.ts);
 * the second writes one page after another through its page actor, in batches: the page
 * stores what it does not already have (page-import.ts), so running the same import again,
 * or a newer export of the same site, adds only what is new. Authors with an email become
 * users (import-users.ts). A dry run makes the first pass only, and looks up in storage which
 * comments are already there.
 *
 * Memory: one batch, one spool bucket, the thread-to-page map (an entry per thread of the
 * source) and a bounded cache of authors; not the number of comments. The page actors written
 * to are passivated as usual (by count and idle time) once their writes are durable.
 */
import { tmpdir } from 'node:os';
import type { ActorSystem } from '../../engine/actor-system.js';
import { COMMENTS } from '../page/comment-doc.js';
import { PageKind, pageActorId } from '../page/protocol.js';
import type { VoteDoc } from '../page/vote-doc.js';
import { importedCommentId, importedDocs } from './import-docs.js';
import { ImportSpool } from './import-spool.js';
import { authorEmail, AuthorUsers } from './import-users.js';
import { type MatchRule, urlIdOf } from './match.js';
import type { ImportComment, ImportFormat, ImportSource } from './records.js';
import { addProblem, type ImportReport, newReport, type ReportedProblem } from './report.js';

/** Comments handed to a page actor per message. */
export const IMPORT_BATCH = 1000;
/** Page actors written at once. */
const PAGES_AT_ONCE = 32;

/** Progress: `reading` the source (by bytes), then `writing` pages (by comments). */
export interface ImportProgress {
  readonly phase: 'reading' | 'writing';
  readonly bytesRead: number;
  readonly commentsSeen: number;
  readonly commentsWritten: number;
}

/** What to import, and how. */
export interface ImportRun {
  readonly system: ActorSystem;
  readonly tenantId: string;
  readonly format: ImportFormat;
  readonly source: ImportSource;
  readonly dryRun: boolean;
  readonly match: MatchRule;
  /** Size of the source file, to size the spool. */
  readonly sourceBytes: number;
  /** Where the spool goes (default: the system's temporary directory). */
  readonly spoolDir?: string;
  onProgress?(progress: ImportProgress): void;
  onProblem?(problem: ReportedProblem): void;
}

interface PageInfo {
  url: string;
  title: string | null;
  isClosed: boolean;
}

/** Imports the source into the tenant; the report's counts add up to the source's records. */
export async function runImport(run: ImportRun): Promise<ImportReport> {
  const report = newReport(run.format, run.dryRun);
  /** Thread id to its page, or to why its comments are skipped. */
  const threads = new Map<string, string | { urlId: string }>();
  const pages = new Map<string, PageInfo>();
  const users = new AuthorUsers(run.system, run.tenantId);
  const dryEmails = new Set<string>();
  const spool = run.dryRun ? undefined : new ImportSpool(run.spoolDir ?? tmpdir(), run.sourceBytes);
  let dryBatch: ImportComment[] = [];
  let seen = 0;
  let written = 0;
  const progress = (phase: ImportProgress['phase']) => run.onProgress?.({ phase, bytesRead: run.source.bytesRead(), commentsSeen: seen, commentsWritten: written });

  const problem = (p: ReportedProblem) => {
    addProblem(report, p);
    run.onProblem?.(p);
  };
  const skip = (sourceId: string | null, reason: string) => {
    report.comments.skipped++;
    problem({ record: 'comment', sourceId, reason, imported: false });
  };
  const checkEmail = (c: ImportComment) => {
    const { email, bad } = authorEmail(c);
    if (bad) problem({ record: 'comment', sourceId: c.sourceId, reason: `author email "${(c.authorEmail ?? '').slice(0, 80)}" is not valid: imported without it`, imported: true });
    if (run.dryRun && email !== null && !dryEmails.has(email)) {
      dryEmails.add(email);
      report.users.created++;
    }
  };
  const dryCheck = async () => {
    const ids = dryBatch.map((c) => importedCommentId(run.tenantId, run.format, c.sourceId));
    dryBatch = [];
    const present = ids.length === 0 ? 0 : (await run.system.store.find(COMMENTS, { _id: { $in: ids } })).length;
    report.comments.alreadyPresent += present;
    report.comments.imported += ids.length - present;
    progress('reading');
  };

  try {
    for await (const record of run.source.records) {
      if (record.kind === 'problem') {
        const p = record.problem;
        // A note on a record still yielded is no record of its own; a skipped one counts as one.
        if (p.imported !== true) {
          if (p.record === 'thread') {
            report.threads.total++;
            report.threads.skipped++;
          } else if (p.record === 'comment') {
            report.comments.total++;
            report.comments.skipped++;
          }
        }
        problem({ ...p, imported: p.imported === true });
        continue;
      }
      if (record.kind === 'thread') {
        const t = record.thread;
        report.threads.total++;
        const urlId = urlIdOf(t, run.match);
        if (urlId === null || t.isDeleted) {
          report.threads.skipped++;
          const why = urlId === null ? 'its thread has neither a URL nor an identifier' : 'its thread is deleted in the source';
          threads.set(t.sourceId, why);
          problem({ record: 'thread', sourceId: t.sourceId, reason: `${why.replace('its thread', 'thread')}: its comments are skipped`, imported: false });
          continue;
        }
        if (run.match === 'identifier' && (t.identifier === null || t.identifier.trim() === '')) {
          problem({ record: 'thread', sourceId: t.sourceId, reason: `thread has an empty identifier: matched by URL path to ${urlId}`, imported: true });
        }
        threads.set(t.sourceId, { urlId });
        const page = pages.get(urlId);
        // Several threads of one page (http and https, with and without www...) merge into it.
        if (page === undefined) pages.set(urlId, { url: t.url ?? urlId, title: t.title, isClosed: t.isClosed });
        else if (page.title === null && t.title !== null) page.title = t.title;
        continue;
      }
      const c = record.comment;
      report.comments.total++;
      seen++;
      const place = threads.get(c.threadId);
      if (place === undefined) skip(c.sourceId, `its thread ${c.threadId} is not in the export`);
      else if (typeof place === 'string') skip(c.sourceId, place);
      else if (c.deleted) skip(c.sourceId, 'deleted in the source');
      else if (c.text.trim() === '' && (c.html ?? '').trim() === '') skip(c.sourceId, 'empty comment');
      else {
        checkEmail(c);
        if (spool !== undefined) await spool.add({ urlId: place.urlId, comment: c });
        else {
          dryBatch.push(c);
          if (dryBatch.length >= IMPORT_BATCH) await dryCheck();
        }
        if (seen % IMPORT_BATCH === 0) progress('reading');
      }
    }
    if (run.dryRun) await dryCheck();
    report.threads.pages = pages.size;
    if (report.comments.total === 0 && report.threads.total === 0 && report.problems.total === 0) {
      // The silent zero-import: a file of another format, or an empty export, is said to be one.
      throw new Error(`no threads or comments found: is this a ${run.format} export?`);
    }
    if (spool === undefined) return report;
    await spool.close();

    const writePage = async (urlId: string, comments: ImportComment[]) => {
      // Oldest first: parents (older than their replies) arrive before them.
      comments.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      const page = pages.get(urlId)!;
      for (let i = 0; i < comments.length; i += IMPORT_BATCH) {
        const chunk = comments.slice(i, i + IMPORT_BATCH);
        const userIds = await users.resolve(chunk, (c) =>
          problem({ record: 'comment', sourceId: c.sourceId, reason: `no user could be made for ${c.authorName.slice(0, 80)}: names taken; imported without a user`, imported: true }),
        );
        const docs = chunk.map((c) => {
          const email = authorEmail(c).email;
          return importedDocs(c, { tenantId: run.tenantId, format: run.format, urlId, url: page.url, pageTitle: page.title, userId: email === null ? null : (userIds.get(email) ?? null), email });
        });
        const votes: VoteDoc[] = docs.flatMap((d) => d.votes);
        const out = await run.system.ask(PageKind, pageActorId(run.tenantId, urlId), 'importComments', { page, comments: docs.map((d) => d.comment), votes });
        report.comments.imported += out.created.length;
        report.comments.alreadyPresent += out.existing.length;
        const created = new Set(out.created);
        report.votes.imported += votes.filter((v) => created.has(v.commentId)).length;
        written += chunk.length;
        progress('writing');
      }
      const { orphans } = await run.system.ask(PageKind, pageActorId(run.tenantId, urlId), 'finishImport', null);
      for (const id of orphans) problem({ record: 'comment', sourceId: id, reason: 'its parent is not in the export (or was skipped): imported as a top-level comment', imported: true });
    };
    for await (const bucket of spool.pages()) {
      const list = [...bucket];
      for (let i = 0; i < list.length; i += PAGES_AT_ONCE) await Promise.all(list.slice(i, i + PAGES_AT_ONCE).map(([urlId, comments]) => writePage(urlId, comments)));
    }
    report.users.created = users.created;
    report.users.existing = users.existing;
    return report;
  } finally {
    spool?.dispose();
  }
}
