/**
 * The moderation export (docs/moderation.md, "Export"): `api/export` records a durable job for
 * the matching comments and counts them in the background; `api/export/status` says how far it
 * got; the download streams the comments as CSV or JSON from storage a batch at a time, never
 * holding the export in memory. A job a stopped server left uncounted is counted again when
 * its status is next asked.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ModerationKind } from '../../actors/moderation/moderation-actor.js';
import type { ModerationExportDoc } from '../../actors/moderation/moderation-model.js';
import { ModerationQueryKind } from '../../actors/moderation/moderation-query-actor.js';
import { jsonParam, type ModerationFilter, parseTextSearch, storageFilter, textMatches } from '../../actors/moderation/moderation-query.js';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { log } from '../../engine/log.js';
import type { Filter } from '../../storage/store.js';
import { withIpOf } from '../moderation/comment-ip.js';
import { MODERATOR_QUERY_PROPS, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { route, StreamedJson, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { MODERATION_BASE, moderationFilterOf } from './moderate-comments.js';

const str = (max: number): Schema => ({ type: 'string', maxLength: max });
const BATCH = 500;
/** Jobs this process is counting (so a status call starts a count only for jobs no one is counting). */
const counting = new Set<string>();

const COLUMNS = ['id', 'urlId', 'url', 'date', 'commenterName', 'commenterEmail', 'userId', 'approved', 'reviewed', 'isSpam', 'isBannedUser', 'flagCount', 'votes', 'comment'] as const;

function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) || /^[=+\-@]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRow(doc: CommentDoc): string {
  return `${COLUMNS.map((c) => csvCell(c === 'id' ? doc._id : doc[c])).join(',')}\r\n`;
}

/**
 * The job's comments, newest first, a batch at a time. Each batch starts where the last one
 * ended (at or before its date, past those of that date already sent), so storage never reads
 * more than a batch and the comments already sent: reading by an ever-growing skip would make
 * each batch read everything before it.
 */
async function* batches(app: AppServices, job: ModerationExportDoc): AsyncIterable<CommentDoc[]> {
  const text = job.text as ModerationFilter;
  let before: string | undefined;
  let sentAtBefore = 0;
  for (;;) {
    const filter = before === undefined ? (job.filter as Filter) : ({ ...job.filter, date: { $lte: before } } as Filter);
    const docs = await app.system.ask(ModerationQueryKind, job.tenantId, 'find', { filter, text: {}, sort: [['date', -1], ['_id', -1]], skip: sentAtBefore, limit: BATCH });
    const kept = docs.filter((d) => textMatches(d, text));
    if (kept.length > 0) yield kept;
    if (docs.length < BATCH) return;
    // A client taking parts as fast as they come would otherwise hold the event loop for the whole export.
    await nextTurn();
    const last = docs[docs.length - 1]!.date;
    if (last === before) sentAtBefore += docs.length;
    else {
      before = last;
      sentAtBefore = docs.filter((d) => d.date === last).length;
    }
  }
}

/** Counts the job's comments and records it done (in the background). */
function count(app: AppServices, job: ModerationExportDoc): void {
  if (counting.has(job._id)) return;
  counting.add(job._id);
  void (async () => {
    let n = 0;
    let failed = false;
    try {
      for await (const batch of batches(app, job)) n += batch.length;
    } catch (err) {
      failed = true;
      log.warn('moderation-export-failed', { tenantId: job.tenantId, jobId: job._id, err });
    }
    try {
      await app.system.ask(ModerationKind, job.tenantId, 'finishExport', { jobId: job._id, recordCount: n, failed });
    } catch (err) {
      log.warn('moderation-export-not-recorded', { tenantId: job.tenantId, jobId: job._id, err });
    } finally {
      counting.delete(job._id);
    }
  })();
}

async function jobOf(app: AppServices, tenantId: string, jobId: string | undefined): Promise<ModerationExportDoc> {
  if (jobId === undefined || jobId === '') throw new ApiError('invalid-param', 'batchJobId is required.');
  const job = await app.system.ask(ModerationKind, tenantId, 'getExport', { jobId });
  if (job === null) throw new ApiError('not-found', `No export ${jobId}.`);
  return job;
}

interface ExportQuery extends ModeratorQuery {
  'text-search'?: string;
  filters?: string;
  sorts?: string;
  batchJobId?: string;
  byIPFromComment?: string;
  format?: 'csv' | 'json';
}

/** Export jobs and their downloads. */
export const moderateExportRoutes = [
  route<ExportQuery, undefined>({
    method: 'POST',
    path: `${MODERATION_BASE}/api/export`,
    access: 'public',
    query: { type: 'object', properties: { ...MODERATOR_QUERY_PROPS, 'text-search': str(1000), byIPFromComment: str(128), filters: str(4000), searchFilters: str(4000), sorts: str(200) } },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      jsonParam(req.query.sorts, 'sorts');
      const text = parseTextSearch(req.query['text-search'], moderationFilterOf(req.query.filters, 'filters'));
      const now = clock.now();
      const job: ModerationExportDoc = {
        _id: newId(now),
        tenantId: moderator.tenantId,
        moderatorUserId: moderator.userId,
        filter: (await withIpOf(req.app, moderator, storageFilter(moderator.tenantId, text, moderator.groups), req.query.byIPFromComment)) as Record<string, unknown>,
        text: { ...(text.commentTextSearch ? { commentTextSearch: text.commentTextSearch } : {}), ...(text.exactCommentText !== undefined ? { exactCommentText: text.exactCommentText } : {}) },
        jobStatus: 'pending',
        recordCount: 0,
        createdAt: new Date(now).toISOString(),
      };
      await req.app.system.ask(ModerationKind, moderator.tenantId, 'createExport', { job });
      count(req.app, job);
      return { batchJobId: job._id };
    },
  }),
  route<ExportQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/api/export/status`,
    access: 'public',
    query: { type: 'object', properties: { ...MODERATOR_QUERY_PROPS, batchJobId: str(64) } },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const job = await jobOf(req.app, moderator.tenantId, req.query.batchJobId);
      if (job.moderatorUserId !== moderator.userId && moderator.groups !== null) throw new ApiError('not-found', `No export ${job._id}.`);
      if (job.jobStatus === 'pending') count(req.app, job);
      const answer: Record<string, unknown> = { jobStatus: job.jobStatus, recordCount: job.recordCount };
      if (job.jobStatus === 'done') answer['downloadUrl'] = `${MODERATION_BASE}/api/export/download?batchJobId=${job._id}&format=csv`;
      return answer;
    },
  }),
  route<ExportQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/api/export/download`,
    access: 'public',
    query: { type: 'object', properties: { ...MODERATOR_QUERY_PROPS, batchJobId: str(64), format: { type: 'string', enum: ['csv', 'json'] } } },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const job = await jobOf(req.app, moderator.tenantId, req.query.batchJobId);
      if (job.moderatorUserId !== moderator.userId && moderator.groups !== null) throw new ApiError('not-found', `No export ${job._id}.`);
      const app = req.app;
      if (req.query.format === 'json') {
        req.setHeader('content-disposition', `attachment; filename="comments-${job._id}.json"`);
        return new StreamedJson(
          (async function* () {
            yield '{"status":"success","comments":[';
            let first = true;
            for await (const batch of batches(app, job)) {
              const parts = batch.map((d) => JSON.stringify({ ...d, id: d._id, hashTagKeys: undefined, authorKey: undefined }));
              yield (first ? '' : ',') + parts.join(',');
              first = false;
            }
            yield ']}';
          })(),
        );
      }
      req.setHeader('content-disposition', `attachment; filename="comments-${job._id}.csv"`);
      return new StreamedJson(
        (async function* () {
          yield `${COLUMNS.join(',')}\r\n`;
          for await (const batch of batches(app, job)) yield batch.map(csvRow).join('');
        })(),
        'text/csv; charset=utf-8',
      );
    },
  }),
];
