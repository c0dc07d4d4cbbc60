import { pageLocator } from '../../actors/page/locator.js';
import { QuestionsKind } from '../../actors/question/protocol.js';
import { QUESTION_LIMITS, type QuestionResultInput, questionResultView } from '../../actors/question/question-model.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';
import { perObjects, route, type Schema } from '../route.js';
import { requireUrlId, text, URL_ID } from './page-context.js';
import { BY_ID, QUESTION_ID, QUESTION_IDS, questionIdsOf, START_DATE, startDateOf } from './question-params.js';

const L = QUESTION_LIMITS;
const META: Schema = {
  type: ['array', 'null'],
  maxItems: L.meta,
  items: { type: 'object', properties: { name: text(L.label, 1), values: { type: 'array', maxItems: L.metaValues, items: text(L.metaText) } }, required: ['name', 'values'] },
};
const RESULT_FIELDS: Record<string, Schema> = {
  urlId: URL_ID,
  questionId: QUESTION_ID,
  value: { type: 'number' },
  userId: { type: ['string', 'null'], maxLength: 256 },
  anonUserId: { type: ['string', 'null'], maxLength: 256 },
  commentId: { type: ['string', 'null'], maxLength: 128 },
  meta: META,
};

interface ListQuery {
  urlId?: string;
  userId?: string;
  startDate?: string;
  questionId?: string[];
  questionIds?: string[];
  skip?: number;
  limit?: number;
}

/** Empty ids are absent ones; a named comment must be one of the tenant's. */
async function normalize(app: AppServices, tenantId: string, body: QuestionResultInput): Promise<QuestionResultInput> {
  const out: QuestionResultInput = { ...body };
  if (body.urlId !== undefined) out.urlId = requireUrlId(body.urlId);
  for (const field of ['userId', 'anonUserId', 'commentId'] as const) if (out[field] === '') out[field] = null;
  if (typeof out.commentId === 'string' && (await pageLocator(app.system).lookup('comment', tenantId, out.commentId)) === undefined) {
    throw new ApiError('invalid-comment-id', `This tenant has no comment ${JSON.stringify(out.commentId)}.`);
  }
  return out;
}

/** `/api/v1/question-results`: rules in docs/questions.md. */
export const questionResultRoutes = [
  route<ListQuery, undefined, { questionResults: unknown[] }>({
    method: 'GET',
    path: '/api/v1/question-results',
    access: 'tenant',
    query: {
      type: 'object',
      properties: {
        urlId: URL_ID,
        userId: text(256, 1),
        startDate: START_DATE,
        questionId: QUESTION_IDS,
        questionIds: QUESTION_IDS,
        skip: { type: 'integer', minimum: 0, maximum: 100_000_000 },
        limit: { type: 'integer', minimum: 1, maximum: L.resultsPageSize },
      },
    },
    credits: (_req, result) => perObjects(result.questionResults.length, 100),
    handle: async ({ app, tenantId, query }) => {
      const filter = {
        ...(query.urlId === undefined ? {} : { urlId: query.urlId }),
        ...(query.userId === undefined ? {} : { userId: query.userId }),
        ...(query.startDate === undefined ? {} : { startDate: startDateOf(query.startDate)! }),
        ...(questionIdsOf(query) === undefined ? {} : { questionIds: questionIdsOf(query)! }),
      };
      const docs = await app.system.ask(QuestionsKind, tenantId, 'listResults', { filter, skip: query.skip ?? 0, limit: query.limit ?? L.resultsPageSize });
      return { questionResults: docs.map(questionResultView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/question-results/:id',
    access: 'tenant',
    params: BY_ID,
    handle: async ({ app, tenantId, params }) => ({ questionResult: questionResultView(await app.system.ask(QuestionsKind, tenantId, 'getResult', { id: params['id']! })) }),
  }),
  route<Record<string, unknown>, QuestionResultInput>({
    method: 'POST',
    path: '/api/v1/question-results',
    access: 'tenant',
    body: { type: 'object', properties: RESULT_FIELDS, required: ['urlId', 'value', 'questionId'] },
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, body }) => {
      const input = await normalize(app, tenantId, body);
      return { questionResult: questionResultView(await app.system.ask(QuestionsKind, tenantId, 'createResult', { input })) };
    },
  }),
  route<Record<string, unknown>, QuestionResultInput>({
    method: 'PATCH',
    path: '/api/v1/question-results/:id',
    access: 'tenant',
    params: BY_ID,
    body: { type: 'object', properties: RESULT_FIELDS, minProperties: 1 },
    handle: async ({ app, tenantId, params, body }) => {
      const changes = await normalize(app, tenantId, body);
      await app.system.ask(QuestionsKind, tenantId, 'patchResult', { id: params['id']!, changes });
      return {};
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/question-results/:id',
    access: 'tenant',
    params: BY_ID,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(QuestionsKind, tenantId, 'deleteResult', { id: params['id']! });
      return {};
    },
  }),
];
