/**
 * Runs an import: reads the source's records, matches threads to pages, makes users of
 * authors with an email (as a new comment's author is made one: the username claim, which
 * emails nobody), and hands comments to their page actors in batches. The page actor stores
 * what it does not already have (page-import.ts): running the same import again, or a newer
 * export of the same site, adds only what is new.
 *
 * Memory: the records of one batch, the thread-to-page map (one entry per thread of the
 * source), the pages touched (one per page), and a bounded cache of authors' users. It does
 * not grow with the number of comments.
 */
import { LRUCache } from 'lru-cache';
import type { ActorSystem } from '../../engine/actor-system.js';
import { ApiError } from '../../engine/errors.js';
import { createHash } from 'node:crypto';
import { COMMENTS } from '../page/comment-doc.js';
import { PageKind, pageActorId } from '../page/protocol.js';
import type { CommentDoc } from '../page/comment-doc.js';
import type { VoteDoc } from '../page/vote-doc.js';
import { UsernameKind, usernameActorId } from '../user/protocol.js';
import { importedDocs } from './import-docs.js';
import { type MatchRule, urlIdOf } from './match.js';
import type { ImportComment, ImportFormat, ImportSource } from './records.js';
import { addProblem, type ImportReport, newReport, type ReportedProblem } from './report.js';

/** Comments handed to page actors per batch. */
export const IMPORT_BATCH = 1000;
/** Page actors asked at once within a batch. */
const PAGES_AT_ONCE = 8;
/** Authors whose user is remembered. */
const AUTHOR_CACHE = 50_000;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Progress, told after every batch. */
export interface ImportProgress {
  readonly bytesRead: number;
  readonly commentsSeen: number;
}

/** What to import, and how. */
export interface ImportRun {
  readonly system: ActorSystem;
  readonly tenantId: string;
  readonly format: ImportFormat;
  readonly source: ImportSource;
  readonly dryRun: boolean;
  readonly match: MatchRule;
  onProgress?(progress: ImportProgress): void;
  onProblem?(problem: ReportedProblem): void;
}

interface ThreadPlace {
  readonly urlId: string;
  readonly url: string;
  readonly title: string | null;
  readonly isClosed: boolean;
  readonly deleted: boolean;
}

interface Pending {
  readonly comment: ImportComment;
  readonly place: ThreadPlace;
}

/** Imports the source into the tenant; the report's counts add up to the source's records. */
export async function runImport(run: ImportRun): Promise<ImportReport> {
  const report = newReport(run.format, run.dryRun);
  const threads = new Map<string, ThreadPlace | string>();
  const pages = new Map<string, { url: string; title: string | null; isClosed: boolean }>();
  const authors = new LRUCache<string, { userId: string | null }>({ max: AUTHOR_CACHE });
  const dryEmails = new Set<string>();
  let buffer: Pending[] = [];
  let seen = 0;

  const problem = (p: ReportedProblem) => {
    addProblem(report, p);
    run.onProblem?.(p);
  };
  const skip = (sourceId: string | null, reason: string) => {
    report.comments.skipped++;
    problem({ record: 'comment', sourceId, reason, imported: false });
  };

  const userFor = async (c: ImportComment): Promise<{ userId: string | null; email: string | null }> => {
    const raw = c.authorEmail?.trim() ?? '';
    if (raw === '') return { userId: null, email: null };
    if (!EMAIL.test(raw) || raw.length > 320) {
      problem({ record: 'comment', sourceId: c.sourceId, reason: `author email "${raw.slice(0, 80)}" is not valid: imported without it`, imported: true });
      return { userId: null, email: null };
    }
    const email = raw.toLowerCase();
    if (run.dryRun) {
      if (!dryEmails.has(email)) {
        dryEmails.add(email);
        report.users.created++;
      }
      return { userId: null, email };
    }
    const cached = authors.get(email);
    if (cached !== undefined) return { userId: cached.userId, email };
    const name = c.authorName.trim().slice(0, 100) || 'Anonymous';
    // Two authors of the source may share a name with different emails: the second gets a
    // name told apart by its email's hash, as a new commenter would have to choose another.
    const names = [name, `${name} (${createHash('sha256').update(email).digest('hex').slice(0, 6)})`];
    let userId: string | null = null;
    for (const username of names) {
      try {
        const claimed = await run.system.ask(UsernameKind, usernameActorId(run.tenantId, username), 'claim', { username, email, avatarSrc: c.authorAvatar });
        userId = claimed.user._id;
        if (claimed.created) report.users.created++;
        else report.users.existing++;
        break;
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'username-taken') throw err;
      }
    }
    if (userId === null) problem({ record: 'comment', sourceId: c.sourceId, reason: `no user could be made for ${name}: names taken; imported without a user`, imported: true });
    authors.set(email, { userId });
    return { userId, email };
  };

  const flush = async () => {
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    const byPage = new Map<string, { comments: CommentDoc[]; votes: VoteDoc[] }>();
    for (const { comment, place } of batch) {
      const who = await userFor(comment);
      const docs = importedDocs(comment, { tenantId: run.tenantId, format: run.format, urlId: place.urlId, url: place.url, pageTitle: place.title, userId: who.userId, email: who.email });
      let group = byPage.get(place.urlId);
      if (group === undefined) byPage.set(place.urlId, (group = { comments: [], votes: [] }));
      group.comments.push(docs.comment);
      group.votes.push(...docs.votes);
    }
    const entries = [...byPage];
    for (let i = 0; i < entries.length; i += PAGES_AT_ONCE) {
      await Promise.all(
        entries.slice(i, i + PAGES_AT_ONCE).map(async ([urlId, group]) => {
          if (run.dryRun) {
            const stored = await Promise.all(group.comments.map((doc) => run.system.store.get(COMMENTS, doc._id)));
            const present = stored.filter((doc) => doc !== undefined).length;
            report.comments.alreadyPresent += present;
            report.comments.imported += group.comments.length - present;
            return;
          }
          const page = pages.get(urlId)!;
          const out = await run.system.ask(PageKind, pageActorId(run.tenantId, urlId), 'importComments', { page, comments: group.comments, votes: group.votes });
          report.comments.imported += out.created.length;
          report.comments.alreadyPresent += out.existing.length;
          const created = new Set(out.created);
          report.votes.imported += group.votes.filter((v) => created.has(v.commentId)).length;
        }),
      );
    }
    run.onProgress?.({ bytesRead: run.source.bytesRead(), commentsSeen: seen });
  };

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
      if (urlId === null) {
        report.threads.skipped++;
        threads.set(t.sourceId, 'its thread has neither a URL nor an identifier');
        problem({ record: 'thread', sourceId: t.sourceId, reason: 'thread has neither a URL nor an identifier: its comments are skipped', imported: false });
        continue;
      }
      if (t.isDeleted) {
        report.threads.skipped++;
        threads.set(t.sourceId, 'its thread is deleted in the source');
        problem({ record: 'thread', sourceId: t.sourceId, reason: 'thread deleted in the source: its comments are skipped', imported: false });
        continue;
      }
      if (run.match === 'identifier' && (t.identifier === null || t.identifier.trim() === '')) {
        problem({ record: 'thread', sourceId: t.sourceId, reason: `thread has an empty identifier: matched by URL path to ${urlId}`, imported: true });
      }
      const url = t.url ?? urlId;
      threads.set(t.sourceId, { urlId, url, title: t.title, isClosed: t.isClosed, deleted: false });
      const page = pages.get(urlId);
      // Several threads of one page (http and https, with and without www...) merge into it.
      if (page === undefined) pages.set(urlId, { url, title: t.title, isClosed: t.isClosed });
      else if (page.title === null && t.title !== null) pages.set(urlId, { ...page, title: t.title });
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
      buffer.push({ comment: c, place });
      if (buffer.length >= IMPORT_BATCH) await flush();
    }
  }
  await flush();
  report.threads.pages = pages.size;
  if (report.comments.total === 0 && report.threads.total === 0 && report.problems.total === 0) {
    // The silent zero-import: a file of another format, or an empty export, is said to be one.
    throw new Error(`no threads or comments found: is this a ${run.format} export?`);
  }
  if (!run.dryRun) {
    for (const urlId of pages.keys()) {
      const { orphans } = await run.system.ask(PageKind, pageActorId(run.tenantId, urlId), 'finishImport', null);
      for (const id of orphans) problem({ record: 'comment', sourceId: id, reason: 'its parent is not in the export (or was skipped): imported as a top-level comment', imported: true });
    }
  }
  return report;
}
