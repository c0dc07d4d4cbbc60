import { QuestionsKind } from '../../actors/question/protocol.js';
import { QUESTION_LIMITS, QUESTION_TYPES, type QuestionConfigInput, questionConfigView } from '../../actors/question/question-model.js';
import { perObjects, route, type Schema } from '../route.js';
import { imageSrc, text } from './page-context.js';
import { BY_ID, QUESTION_ID } from './question-params.js';

/** Credits of deleting a configuration: it removes every result of the question. */
export const DELETE_CONFIG_CREDITS = 100;

const L = QUESTION_LIMITS;
const number: Schema = { type: 'number' };
const CONFIG_FIELDS: Record<string, Schema> = {
  name: text(L.name, 1),
  question: text(L.question, 1),
  summaryLabel: text(L.label),
  helpText: text(L.helpText),
  type: { type: 'string', enum: QUESTION_TYPES },
  numStars: number,
  min: number,
  max: number,
  defaultValue: number,
  labelNegative: text(L.label),
  labelPositive: text(L.label),
  customOptions: {
    type: 'array',
    maxItems: L.customOptions,
    items: { type: 'object', properties: { imageSrc: imageSrc(2048), name: text(L.label) }, required: ['imageSrc', 'name'] },
  },
  subQuestionIds: { type: 'array', maxItems: L.subQuestionIds, items: QUESTION_ID },
  alwaysShowSubQuestions: { type: 'boolean' },
  reportingOrder: number,
};

/** `/api/v1/question-configs`: rules in docs/questions.md. */
export const questionConfigRoutes = [
  route<{ skip?: number }, undefined, { questionConfigs: unknown[] }>({
    method: 'GET',
    path: '/api/v1/question-configs',
    access: 'tenant',
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 1_000_000 } } },
    credits: (_req, result) => perObjects(result.questionConfigs.length, 100),
    handle: async ({ app, tenantId, query }) => {
      const docs = await app.system.ask(QuestionsKind, tenantId, 'listConfigs', { skip: query.skip ?? 0 });
      return { questionConfigs: docs.map(questionConfigView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/question-configs/:id',
    access: 'tenant',
    params: BY_ID,
    handle: async ({ app, tenantId, params }) => ({ questionConfig: questionConfigView(await app.system.ask(QuestionsKind, tenantId, 'getConfig', { id: params['id']! })) }),
  }),
  route<Record<string, unknown>, QuestionConfigInput>({
    method: 'POST',
    path: '/api/v1/question-configs',
    access: 'tenant',
    body: { type: 'object', properties: CONFIG_FIELDS, required: ['name', 'question', 'type', 'reportingOrder'] },
    handle: async ({ app, tenantId, body, auth }) => {
      const createdBy = auth?.userId ?? auth?.keyId ?? 'api';
      return { questionConfig: questionConfigView(await app.system.ask(QuestionsKind, tenantId, 'createConfig', { input: body, createdBy })) };
    },
  }),
  route<Record<string, unknown>, QuestionConfigInput>({
    method: 'PATCH',
    path: '/api/v1/question-configs/:id',
    access: 'tenant',
    params: BY_ID,
    body: { type: 'object', properties: CONFIG_FIELDS, minProperties: 1 },
    handle: async ({ app, tenantId, params, body }) => {
      await app.system.ask(QuestionsKind, tenantId, 'patchConfig', { id: params['id']!, changes: body });
      return {};
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/question-configs/:id',
    access: 'tenant',
    params: BY_ID,
    credits: DELETE_CONFIG_CREDITS,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(QuestionsKind, tenantId, 'deleteConfig', { id: params['id']! });
      return {};
    },
  }),
];
