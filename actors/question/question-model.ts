/**
 * Questions: the stored shapes of question configurations and their results, the rules that
 * make a configuration whole (bounds by type), and the wire shapes of the API description
 * (`QuestionConfig`, `QuestionResult`). Pure: the questions actor and the routes call it.
 */
import { ApiError } from '../../engine/errors.js';
import type { CollectionSpec, Doc } from '../../storage/store.js';
import { QUESTION_TALLIES } from './tally.js';

/** The collections of questions, both written only by the questions actor. */
export const QUESTION_COLLECTIONS = { configs: 'questionConfigs', results: 'questionResults' } as const;

/**
 * Configurations are few per tenant and listed by question text. Results are many: found by
 * question and time (lists, aggregates, the purge after a configuration is deleted), by page,
 * and by user. Tallies (`tally.ts`) are found by question and kind.
 */
export const questionCollections: readonly CollectionSpec[] = [
  { name: QUESTION_COLLECTIONS.configs, indexes: [{ name: 'by_question', fields: ['tenantId', 'question'] }] },
  {
    name: QUESTION_COLLECTIONS.results,
    indexes: [
      { name: 'by_question_time', fields: ['tenantId', 'questionId', 'createdAt'] },
      { name: 'by_time', fields: ['tenantId', 'createdAt'] },
      { name: 'by_page', fields: ['tenantId', 'urlId', 'createdAt'] },
      { name: 'by_user', fields: ['tenantId', 'userId', 'createdAt'] },
    ],
  },
  { name: QUESTION_TALLIES, indexes: [{ name: 'by_question_kind', fields: ['tenantId', 'questionId', 'kind', 'key'] }] },
];

/** The types of question the API names: `QuestionConfigType`. */
export const QUESTION_TYPES = ['nps', 'slider', 'star', 'thumbs'] as const;
/** One of `QUESTION_TYPES`. */
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** Sizes and bounds of configurations and results (docs/questions.md). */
export const QUESTION_LIMITS = {
  /** Configurations one tenant may have (the questions actor holds them all in memory). */
  configsPerTenant: 1000,
  configsPageSize: 100,
  resultsPageSize: 1000,
  name: 200,
  question: 1000,
  helpText: 2000,
  label: 200,
  customOptions: 50,
  subQuestionIds: 20,
  meta: 50,
  metaValues: 50,
  metaText: 1000,
  /** Bounds of slider values and of any result value (results are int32 on the wire). */
  valueMax: 1_000_000_000,
  numStarsMax: 10,
} as const;

/** A custom option of a configuration: a picture and its name. */
export interface CustomOption {
  readonly imageSrc: string;
  readonly name: string;
}

/** A stored question configuration. */
export interface QuestionConfigDoc extends Doc {
  tenantId: string;
  name: string;
  question: string;
  summaryLabel?: string;
  helpText: string;
  /** ISO date-time. */
  createdAt: string;
  createdBy: string;
  usedCount: number;
  /** ISO date-time of the newest result, or null before the first. */
  lastUsed: string | null;
  type: QuestionType;
  numStars: number;
  min: number;
  max: number;
  defaultValue: number;
  labelNegative: string;
  labelPositive: string;
  customOptions: CustomOption[];
  subQuestionIds: string[];
  alwaysShowSubQuestions: boolean;
  reportingOrder: number;
  /**
   * Set when the configuration was deleted while its results are still being removed: it is
   * gone for every reader, and the document goes once its last result has.
   */
  deletedAt?: string;
}

/** A named list of values a caller attaches to a result. */
export interface MetaItem {
  readonly name: string;
  readonly values: string[];
}

/** A stored question result. */
export interface QuestionResultDoc extends Doc {
  tenantId: string;
  urlId: string;
  questionId: string;
  value: number;
  userId: string | null;
  anonUserId: string | null;
  commentId: string | null;
  meta: MetaItem[] | null;
  /** ISO date-time. */
  createdAt: string;
}

/** The fields a caller may set on a configuration (create: the required ones too). */
export interface QuestionConfigInput {
  name?: string;
  question?: string;
  summaryLabel?: string;
  helpText?: string;
  type?: string;
  numStars?: number;
  min?: number;
  max?: number;
  defaultValue?: number;
  labelNegative?: string;
  labelPositive?: string;
  customOptions?: CustomOption[];
  subQuestionIds?: string[];
  alwaysShowSubQuestions?: boolean;
  reportingOrder?: number;
}

/** The fields a caller may set on a result. */
export interface QuestionResultInput {
  urlId?: string;
  questionId?: string;
  value?: number;
  userId?: string | null;
  anonUserId?: string | null;
  commentId?: string | null;
  meta?: MetaItem[] | null;
}

const DEFAULT_STARS = 5;

function isQuestionType(type: string): type is QuestionType {
  return (QUESTION_TYPES as readonly string[]).includes(type);
}

function boundedInteger(what: string, value: number): number {
  if (!Number.isInteger(value) || Math.abs(value) > QUESTION_LIMITS.valueMax) {
    throw new ApiError('invalid-param', `${what} must be a whole number within ±${QUESTION_LIMITS.valueMax}.`);
  }
  return value;
}

function nonBlank(what: string, text: string): string {
  if (text.trim() === '') throw new ApiError('invalid-param', `${what} must not be blank.`);
  return text;
}

/**
 * Completes a configuration after a create or a change: the value bounds follow the type
 * (NPS 0 to 10, thumbs 0 for down and 1 for up, star 1 to `numStars`, slider `min` to `max`
 * as given, 0 to 10 by default), and `defaultValue` lies within them (the minimum unless given).
 */
export function normalizeConfig(doc: QuestionConfigDoc): QuestionConfigDoc {
  if (!isQuestionType(doc.type)) throw new ApiError('invalid-param', `type must be one of ${QUESTION_TYPES.join(', ')}.`);
  nonBlank('name', doc.name);
  nonBlank('question', doc.question);
  let { min, max, numStars } = doc;
  switch (doc.type) {
    case 'nps':
      [min, max] = [0, 10];
      break;
    case 'thumbs':
      [min, max] = [0, 1];
      break;
    case 'star':
      numStars = boundedInteger('numStars', numStars > 0 ? numStars : DEFAULT_STARS);
      if (numStars < 1 || numStars > QUESTION_LIMITS.numStarsMax) throw new ApiError('invalid-param', `numStars must be 1 to ${QUESTION_LIMITS.numStarsMax}.`);
      [min, max] = [1, numStars];
      break;
    case 'slider':
      boundedInteger('min', min);
      boundedInteger('max', max);
      if (min >= max) throw new ApiError('invalid-param', 'A slider needs min below max.');
      break;
  }
  const defaultValue = Number.isNaN(doc.defaultValue) ? min : doc.defaultValue;
  if (defaultValue < min || defaultValue > max) throw new ApiError('invalid-param', `defaultValue must lie within ${min} to ${max}.`);
  if (!Number.isFinite(doc.reportingOrder)) throw new ApiError('invalid-param', 'reportingOrder must be a number.');
  return { ...doc, min, max, numStars: doc.type === 'star' ? numStars : doc.numStars, defaultValue };
}

/** A new configuration from a create request's fields (already schema-checked). */
export function newConfig(input: QuestionConfigInput, at: { id: string; tenantId: string; createdBy: string; nowIso: string }): QuestionConfigDoc {
  const type = input.type ?? '';
  const sliderDefaults = type === 'slider' ? { min: 0, max: 10 } : { min: 0, max: 0 };
  return normalizeConfig({
    _id: at.id,
    tenantId: at.tenantId,
    name: input.name ?? '',
    question: input.question ?? '',
    ...(input.summaryLabel === undefined ? {} : { summaryLabel: input.summaryLabel }),
    helpText: input.helpText ?? '',
    createdAt: at.nowIso,
    createdBy: at.createdBy,
    usedCount: 0,
    lastUsed: null,
    type: type as QuestionType,
    numStars: input.numStars ?? 0,
    min: input.min ?? sliderDefaults.min,
    max: input.max ?? sliderDefaults.max,
    defaultValue: input.defaultValue ?? Number.NaN,
    labelNegative: input.labelNegative ?? '',
    labelPositive: input.labelPositive ?? '',
    customOptions: input.customOptions ?? [],
    subQuestionIds: input.subQuestionIds ?? [],
    alwaysShowSubQuestions: input.alwaysShowSubQuestions ?? false,
    reportingOrder: input.reportingOrder ?? 0,
  });
}

/** A configuration with a PATCH applied; a change of type re-derives the bounds. */
export function patchConfig(current: QuestionConfigDoc, changes: QuestionConfigInput): QuestionConfigDoc {
  const next = { ...current } as QuestionConfigDoc & Record<string, unknown>;
  for (const [field, value] of Object.entries(changes)) if (value !== undefined) next[field] = value;
  const typeChanged = changes.type !== undefined && changes.type !== current.type;
  if (typeChanged && changes.defaultValue === undefined) next.defaultValue = Number.NaN;
  if (typeChanged && next.type === 'slider' && changes.min === undefined && changes.max === undefined) [next.min, next.max] = [0, 10];
  if (changes.min !== undefined || changes.max !== undefined) {
    if (changes.defaultValue === undefined && (next.defaultValue < next.min || next.defaultValue > next.max)) next.defaultValue = Number.NaN;
  }
  return normalizeConfig(next);
}

/** Refuses a value the question cannot have: results are whole numbers within the question's bounds. */
export function checkValue(config: QuestionConfigDoc, value: number): number {
  if (!Number.isInteger(value) || value < config.min || value > config.max) {
    throw new ApiError('invalid-param', `The value for question ${config._id} (${config.type}) must be a whole number from ${config.min} to ${config.max}.`);
  }
  return value;
}

/** `QuestionConfig` of the API description. `lastUsed` is the creation time until a first result. */
export function questionConfigView(doc: QuestionConfigDoc): Record<string, unknown> {
  return {
    _id: doc._id,
    tenantId: doc.tenantId,
    name: doc.name,
    question: doc.question,
    ...(doc.summaryLabel === undefined ? {} : { summaryLabel: doc.summaryLabel }),
    helpText: doc.helpText,
    createdAt: doc.createdAt,
    createdBy: doc.createdBy,
    usedCount: doc.usedCount,
    lastUsed: doc.lastUsed ?? doc.createdAt,
    type: doc.type,
    numStars: doc.numStars,
    min: doc.min,
    max: doc.max,
    defaultValue: doc.defaultValue,
    labelNegative: doc.labelNegative,
    labelPositive: doc.labelPositive,
    customOptions: doc.customOptions,
    subQuestionIds: doc.subQuestionIds,
    alwaysShowSubQuestions: doc.alwaysShowSubQuestions,
    reportingOrder: doc.reportingOrder,
  };
}

/**
 * `QuestionResult` of the API description. Its `userId`, `anonUserId` and `ipHash` are required
 * strings, so an absent one is the empty string; no address is ever stored, so `ipHash` is empty.
 */
export function questionResultView(doc: QuestionResultDoc): Record<string, unknown> {
  return {
    _id: doc._id,
    tenantId: doc.tenantId,
    urlId: doc.urlId,
    anonUserId: doc.anonUserId ?? '',
    userId: doc.userId ?? '',
    createdAt: doc.createdAt,
    value: doc.value,
    commentId: doc.commentId,
    questionId: doc.questionId,
    meta: doc.meta,
    ipHash: '',
  };
}

/** What every subscriber of a page may see of a result: no user or anonymous id, no meta. */
export function publicQuestionResult(doc: QuestionResultDoc): Record<string, unknown> {
  return { _id: doc._id, urlId: doc.urlId, questionId: doc.questionId, value: doc.value, commentId: doc.commentId, createdAt: doc.createdAt };
}
