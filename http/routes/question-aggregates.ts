import { QuestionsKind } from '../../actors/question/protocol.js';
import { questionCacheFor } from '../../aggregate/question-cache.js';
import { type QuestionTask, type ResultScope, TIME_BUCKETS, type TimeBucket } from '../../aggregate/question-task.js';
import { ApiError } from '../../engine/errors.js';
import { RawJson, route, type RouteRequest, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { text, URL_ID } from './page-context.js';
import { MAX_QUESTION_IDS, QUESTION_IDS, questionIdsOf, START_DATE, startDateOf } from './question-params.js';

/** Credits of one aggregate: the same on a hit or a miss, more when the cache is bypassed. */
export const AGGREGATE_CREDITS = { cached: 2, forced: 10 } as const;
/** Results a combination with comments answers by default, and at most. */
export const COMBINE_LIMIT = { default: 100, max: 1000 } as const;
/** Aggregates one bulk call may ask for. */
export const BULK_MAX = 50;

interface ScopeQuery {
  questionId?: string[];
  questionIds?: string[];
  urlId?: string;
  userId?: string;
  startDate?: string;
  forceRecalculate?: boolean;
}

interface AggregateQuery extends ScopeQuery {
  timeBucket?: TimeBucket;
}

interface CombineQuery extends ScopeQuery {
  minValue?: number;
  maxValue?: number;
  limit?: number;
}

interface BulkItem {
  aggId: string;
  questionId?: string;
  questionIds?: string[];
  urlId?: string;
  timeBucket?: TimeBucket;
  startDate?: string;
}

const SCOPE_FIELDS: Record<string, Schema> = {
  questionId: QUESTION_IDS,
  questionIds: QUESTION_IDS,
  urlId: URL_ID,
  userId: text(256, 1),
  startDate: START_DATE,
  forceRecalculate: { type: 'boolean' },
};
const TIME_BUCKET: Schema = { type: 'string', enum: TIME_BUCKETS };

/** The results a call reads: its filters, with the questions being deleted left out. */
async function scopeOf(app: AppServices, tenantId: string, query: Omit<ScopeQuery, 'forceRecalculate'>): Promise<ResultScope> {
  const questionIds = questionIdsOf(query);
  const deleting = await app.system.ask(QuestionsKind, tenantId, 'deleting', null);
  return {
    tenantId,
    ...(questionIds === undefined ? {} : { questionIds: questionIds.filter((id) => !deleting.includes(id)) }),
    excludeQuestionIds: questionIds === undefined ? deleting.sort() : [],
    ...(query.urlId === undefined ? {} : { urlId: query.urlId }),
    ...(query.userId === undefined ? {} : { userId: query.userId }),
    ...(query.startDate === undefined ? {} : { startDate: startDateOf(query.startDate)! }),
  };
}

/** `{"status":"success","data":…}` around cached bytes; says in `X-Cache` whether they were. */
function answer(req: { setHeader(name: string, value: string): void }, parts: readonly (Uint8Array | string)[], cached: boolean): RawJson {
  req.setHeader('X-Cache', cached ? 'hit' : 'miss');
  return new RawJson(Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))));
}

const credits = (req: RouteRequest<{ forceRecalculate?: boolean }>) => (req.query.forceRecalculate === true ? AGGREGATE_CREDITS.forced : AGGREGATE_CREDITS.cached);

/** The routes under one prefix: the seed names `question-results-aggregate`, the API description `-aggregation`. */
function routesUnder(prefix: string) {
  return [
    route<AggregateQuery, undefined>({
      method: 'GET',
      path: prefix,
      access: 'tenant',
      query: { type: 'object', properties: { ...SCOPE_FIELDS, timeBucket: TIME_BUCKET } },
      credits,
      handle: async (req) => {
        const { app, tenantId, query } = req;
        const task: QuestionTask = { questionTask: 'aggregate', ...(await scopeOf(app, tenantId, query)), ...(query.timeBucket === undefined ? {} : { timeBucket: query.timeBucket }) };
        const { data, cached } = await questionCacheFor(app.aggregator).answer(task, query.forceRecalculate === true);
        return answer(req, ['{"status":"success","data":', data, '}'], cached);
      },
    }),
    route<CombineQuery, undefined>({
      method: 'GET',
      path: `${prefix}/combine/comments`,
      access: 'tenant',
      query: {
        type: 'object',
        properties: { ...SCOPE_FIELDS, minValue: { type: 'number' }, maxValue: { type: 'number' }, limit: { type: 'integer', minimum: 1, maximum: COMBINE_LIMIT.max } },
      },
      credits,
      handle: async (req) => {
        const { app, tenantId, query } = req;
        if (query.minValue !== undefined && query.maxValue !== undefined && query.minValue > query.maxValue) throw new ApiError('invalid-param', 'minValue must not be above maxValue.');
        const task: QuestionTask = {
          questionTask: 'comments',
          ...(await scopeOf(app, tenantId, query)),
          ...(query.minValue === undefined ? {} : { minValue: query.minValue }),
          ...(query.maxValue === undefined ? {} : { maxValue: query.maxValue }),
          limit: query.limit ?? COMBINE_LIMIT.default,
        };
        const { data, cached } = await questionCacheFor(app.aggregator).answer(task, query.forceRecalculate === true);
        return answer(req, ['{"status":"success","data":', data, '}'], cached);
      },
    }),
    route<{ forceRecalculate?: boolean }, { aggregations: BulkItem[] }>({
      method: 'POST',
      path: `${prefix}/bulk`,
      access: 'tenant',
      query: { type: 'object', properties: { forceRecalculate: { type: 'boolean' } } },
      body: {
        type: 'object',
        properties: {
          aggregations: {
            type: 'array',
            minItems: 1,
            maxItems: BULK_MAX,
            items: {
              type: 'object',
              properties: {
                aggId: text(200, 1),
                questionId: text(128, 1),
                questionIds: { type: 'array', maxItems: MAX_QUESTION_IDS, items: text(128, 1) },
                urlId: URL_ID,
                timeBucket: TIME_BUCKET,
                startDate: START_DATE,
              },
              required: ['aggId'],
            },
          },
        },
        required: ['aggregations'],
      },
      credits: (req) => credits(req) * req.body.aggregations.length,
      handle: async (req) => {
        const { app, tenantId, query, body } = req;
        const ids = new Set(body.aggregations.map((item) => item.aggId));
        if (ids.size !== body.aggregations.length) throw new ApiError('invalid-param', 'Every aggId of a bulk call must be different.');
        const tasks: QuestionTask[] = [];
        for (const item of body.aggregations) {
          const scope = await scopeOf(app, tenantId, { ...item, questionId: item.questionId === undefined ? undefined : [item.questionId] });
          tasks.push({ questionTask: 'aggregate', ...scope, ...(item.timeBucket === undefined ? {} : { timeBucket: item.timeBucket }) });
        }
        const cache = questionCacheFor(app.aggregator);
        const answers = await Promise.all(tasks.map((task) => cache.answer(task, query.forceRecalculate === true)));
        const parts: (Uint8Array | string)[] = ['{"status":"success","data":{'];
        body.aggregations.forEach((item, i) => parts.push(`${i === 0 ? '' : ','}${JSON.stringify(item.aggId)}:`, answers[i]!.data));
        parts.push('}}');
        return answer(req, parts, answers.every((a) => a.cached));
      },
    }),
  ];
}

/** The question-result aggregates and their combination with comments: rules in docs/questions.md. */
export const questionAggregateRoutes = [...routesUnder('/api/v1/question-results-aggregation'), ...routesUnder('/api/v1/question-results-aggregate')];
