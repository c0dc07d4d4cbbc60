/**
 * The worker side of question aggregates: streams a tenant's results from storage into the
 * accumulator, or finds the newest results in a value range with their comments. Runs in an
 * aggregation worker thread (`worker.ts`), never on the thread serving requests.
 */
import { performance } from 'node:perf_hooks';
import { COMMENTS } from '../actors/page/comment-doc.js';
import { QUESTION_COLLECTIONS, type QuestionResultDoc, questionResultView } from '../actors/question/question-model.js';
import { commentSnapshot } from '../actors/webhook/webhook-model.js';
import type { Doc, FieldCondition, Store } from '../storage/store.js';
import type { WorkerAnswer } from './plan.js';
import { QUESTION_TALLIES, type TallyDoc } from '../actors/question/tally.js';
import { type QuestionAggregateTask, QuestionAccumulator, type QuestionCommentsTask, type QuestionTask, resultFilter, talliesAnswer } from './question-task.js';

/** Results per storage batch: large, since each is small and only a few fields are read. */
const BATCH = 5000;

async function aggregate(store: Store, task: QuestionAggregateTask): Promise<{ json: string; scanned: number }> {
  const accumulator = new QuestionAccumulator(task.timeBucket);
  if (talliesAnswer(task)) await fromTallies(store, task, accumulator);
  else {
    for await (const batch of store.scan<QuestionResultDoc>(QUESTION_COLLECTIONS.results, resultFilter(task), { batchSize: BATCH })) {
      for (const doc of batch) accumulator.add(doc);
    }
  }
  return { json: JSON.stringify(accumulator.result(new Date().toISOString())), scanned: accumulator.total };
}

/**
 * The aggregate from the questions' tallies: day tallies give the totals and the buckets, page
 * tallies the counts by page; for one page, its tallies give everything.
 */
async function fromTallies(store: Store, task: QuestionAggregateTask, accumulator: QuestionAccumulator): Promise<void> {
  const filter = resultFilter({ tenantId: task.tenantId, excludeQuestionIds: task.excludeQuestionIds, ...(task.questionIds === undefined ? {} : { questionIds: task.questionIds }) });
  const scoped = task.urlId === undefined ? filter : { ...filter, kind: 'url', key: task.urlId };
  for await (const batch of store.scan<TallyDoc>(QUESTION_TALLIES, scoped, { batchSize: BATCH })) {
    for (const tally of batch) {
      if (task.urlId !== undefined) accumulator.addCounts(tally.counts, { urlId: tally.key });
      else if (tally.kind === 'day') accumulator.addCounts(tally.counts, { day: tally.key });
      else accumulator.addPage(tally.key, tally.counts);
    }
  }
}

function newestFirst(a: QuestionResultDoc, b: QuestionResultDoc): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a._id < b._id ? 1 : a._id > b._id ? -1 : 0;
}

async function combine(store: Store, task: QuestionCommentsTask): Promise<{ json: string; scanned: number }> {
  const value: Record<string, number> = {};
  if (task.minValue !== undefined) value['$gte'] = task.minValue;
  if (task.maxValue !== undefined) value['$lte'] = task.maxValue;
  const extra: Record<string, FieldCondition> = { commentId: { $exists: true } };
  if (Object.keys(value).length > 0) extra['value'] = value;
  // One ordered read per question, merged as they come: a read of several questions at once
  // could not stream in time order and would gather every match before sorting.
  const scopes = task.questionIds === undefined ? [task] : task.questionIds.map((id) => ({ ...task, questionIds: [id] }));
  let results: QuestionResultDoc[] = [];
  for (const scope of scopes) {
    const read = await store.find<QuestionResultDoc>(QUESTION_COLLECTIONS.results, resultFilter(scope, extra), { sort: [['createdAt', -1], ['_id', -1]], limit: task.limit });
    results = [...results, ...read].sort(newestFirst).slice(0, task.limit);
  }
  const ids = [...new Set(results.map((r) => r.commentId!))];
  const comments = new Map<string, Doc>();
  for (let i = 0; i < ids.length; i += 500) {
    const found = await store.find(COMMENTS, { _id: { $in: ids.slice(i, i + 500) } });
    for (const doc of found) if (doc['tenantId'] === task.tenantId) comments.set(doc._id, doc);
  }
  const items = results.map((r) => {
    const comment = comments.get(r.commentId!);
    return { comment: comment === undefined ? null : commentSnapshot(comment), result: questionResultView(r) };
  });
  return { json: JSON.stringify({ results: items, createdAt: new Date().toISOString() }), scanned: results.length };
}

/** Runs one question task on the worker's store; the answer's `data` is the API object as JSON bytes. */
export async function runQuestionTask(store: Store, task: QuestionTask): Promise<WorkerAnswer> {
  const started = performance.now();
  const { json, scanned } = task.questionTask === 'aggregate' ? await aggregate(store, task) : await combine(store, task);
  return { data: new TextEncoder().encode(json), scanned, timeMs: Math.round(performance.now() - started) };
}
