import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { log } from '../../engine/log.js';
import type { Filter, WriteOp } from '../../storage/store.js';
import { pageTopic } from '../live/live-events.js';
import { questionResultEvent } from './question-events.js';
import { counted, emptyTally, QUESTION_TALLIES, tallyKeys, type TallyDoc } from './tally.js';
import {
  checkValue,
  newConfig,
  patchConfig,
  QUESTION_COLLECTIONS,
  QUESTION_LIMITS,
  type QuestionConfigDoc,
  type QuestionResultDoc,
  type QuestionResultInput,
} from './question-model.js';
import { type CommentAnswer, QuestionsKind, type QuestionsProtocol, type ResultFilter } from './protocol.js';

const { configs: CONFIGS, results: RESULTS } = QUESTION_COLLECTIONS;

/** Results removed per purge step (one durable batch each). */
export const PURGE_STEP = 1000;
/** Tallies remembered; past this, the memory is dropped once what was written is durable. */
const TALLIES_KEPT = 10_000;

/**
 * One tenant's questions. Every configuration is held in memory (a tenant has at most
 * `QUESTION_LIMITS.configsPerTenant`), so results are checked against their question without
 * a read; results themselves stay in storage and are read on demand, once everything written
 * before is durable. Each stored, changed or deleted result moves its question's tallies
 * (`tally.ts`) in the same batch. Deleting a configuration removes it for every reader at once and its
 * results in steps afterwards; a step cut short by a crash resumes at the next activation.
 */
export class QuestionsActor extends Actor<QuestionsProtocol> {
  readonly #configs = new Map<string, QuestionConfigDoc>();
  /** Deleted configurations whose results are still being removed. */
  readonly #deleting = new Map<string, QuestionConfigDoc>();
  /** Tallies as last written (this actor is their only writer), by id; null: none stored. */
  readonly #tallies = new Map<string, TallyDoc | null>();

  override async onStart(): Promise<void> {
    const docs = await this.store.find<QuestionConfigDoc>(CONFIGS, { tenantId: this.id });
    for (const doc of docs) (doc.deletedAt === undefined ? this.#configs : this.#deleting).set(doc._id, doc);
    for (const id of this.#deleting.keys()) this.#purgeLater(id);
  }

  readonly handlers: Handlers<QuestionsProtocol> = {
    listConfigs: ({ skip }) => {
      const sorted = [...this.#configs.values()].sort((a, b) => (a.question < b.question ? -1 : a.question > b.question ? 1 : a._id < b._id ? -1 : 1));
      return sorted.slice(skip, skip + QUESTION_LIMITS.configsPageSize);
    },
    getConfig: ({ id }) => this.#config(id),
    createConfig: ({ input, createdBy }) => {
      if (this.#configs.size + this.#deleting.size >= QUESTION_LIMITS.configsPerTenant) {
        throw new ApiError('question-config-limit', `A tenant may have at most ${QUESTION_LIMITS.configsPerTenant} question configurations.`);
      }
      const now = clock.now();
      const doc = newConfig(input, { id: newId(now), tenantId: this.id, createdBy, nowIso: new Date(now).toISOString() });
      this.#checkSubQuestions(doc);
      this.put(CONFIGS, doc);
      this.#configs.set(doc._id, doc);
      return doc;
    },
    patchConfig: ({ id, changes }) => {
      const next = patchConfig(this.#config(id), changes);
      this.#checkSubQuestions(next);
      this.put(CONFIGS, next);
      this.#configs.set(id, next);
      return next;
    },
    deleteConfig: ({ id }) => {
      const doc = this.#config(id);
      const tombstone: QuestionConfigDoc = { ...doc, deletedAt: new Date(clock.now()).toISOString() };
      this.put(CONFIGS, tombstone);
      this.#configs.delete(id);
      this.#deleting.set(id, tombstone);
      this.#purgeLater(id);
      return null;
    },
    purge: async ({ questionId }) => {
      if (!this.#deleting.has(questionId)) return { done: true };
      await this.commitNow([]);
      let collection: string = RESULTS;
      let batch = await this.store.find(RESULTS, { tenantId: this.id, questionId }, { limit: PURGE_STEP });
      if (batch.length === 0) {
        collection = QUESTION_TALLIES;
        batch = await this.store.find(QUESTION_TALLIES, { tenantId: this.id, questionId }, { limit: PURGE_STEP });
      }
      const ops: WriteOp[] = batch.map((doc) => ({ op: 'delete', collection, id: doc._id }));
      const done = collection === QUESTION_TALLIES && batch.length < PURGE_STEP;
      if (done) ops.push({ op: 'delete', collection: CONFIGS, id: questionId });
      if (collection === QUESTION_TALLIES) for (const doc of batch) this.#tallies.delete(doc._id);
      await this.commitNow(ops);
      if (done) this.#deleting.delete(questionId);
      else this.#purgeLater(questionId);
      return { done };
    },
    deleting: () => [...this.#deleting.keys()],
    listResults: async ({ filter, skip, limit }) => {
      const query = this.#resultQuery(filter);
      if (query === undefined) return [];
      await this.commitNow([]);
      return this.store.find<QuestionResultDoc>(RESULTS, query, { sort: [['createdAt', 1], ['_id', 1]], skip, limit });
    },
    getResult: async ({ id }) => this.#result(id),
    createResult: async ({ input }) => this.#record(input),
    patchResult: async ({ id, changes }) => {
      const current = await this.#result(id);
      const next: QuestionResultDoc = { ...current };
      if (changes.urlId !== undefined) next.urlId = changes.urlId;
      if (changes.questionId !== undefined) next.questionId = changes.questionId;
      if (changes.value !== undefined) next.value = changes.value;
      if (changes.userId !== undefined) next.userId = changes.userId;
      if (changes.anonUserId !== undefined) next.anonUserId = changes.anonUserId;
      if (changes.commentId !== undefined) next.commentId = changes.commentId;
      if (changes.meta !== undefined) next.meta = changes.meta;
      const config = this.#config(next.questionId, 'invalid-question-id');
      checkValue(config, next.value);
      await this.#count(current, -1);
      await this.#count(next, 1);
      this.put(RESULTS, next);
      this.publish(pageTopic(this.id, next.urlId), questionResultEvent(next));
      return next;
    },
    deleteResult: async ({ id }) => {
      await this.#count(await this.#result(id), -1);
      this.remove(RESULTS, id);
      return null;
    },
    checkAnswers: ({ answers }) => {
      this.#checkAnswers(answers);
      return null;
    },
    recordAnswers: async ({ answers, commentId, urlId, userId, anonUserId }) => {
      this.#checkAnswers(answers);
      const docs: QuestionResultDoc[] = [];
      for (const answer of answers) docs.push(await this.#record({ urlId, questionId: answer.questionId, value: answer.value, userId, anonUserId, commentId, meta: null }));
      return docs;
    },
  };

  #config(id: string, missing: 'not-found' | 'invalid-question-id' = 'not-found'): QuestionConfigDoc {
    const doc = this.#configs.get(id);
    if (doc === undefined) throw new ApiError(missing, `No question configuration has the id ${JSON.stringify(id)}.`);
    return doc;
  }

  async #result(id: string): Promise<QuestionResultDoc> {
    await this.commitNow([]);
    const doc = await this.store.get<QuestionResultDoc>(RESULTS, id);
    if (doc === undefined || doc.tenantId !== this.id || this.#deleting.has(doc.questionId)) throw new ApiError('not-found', `No question result has the id ${JSON.stringify(id)}.`);
    return doc;
  }

  #checkSubQuestions(doc: QuestionConfigDoc): void {
    for (const sub of doc.subQuestionIds) {
      if (sub === doc._id) throw new ApiError('invalid-question-id', 'A question cannot be its own sub-question.');
      this.#config(sub, 'invalid-question-id');
    }
  }

  #checkAnswers(answers: readonly CommentAnswer[]): void {
    const seen = new Set<string>();
    for (const { questionId, value } of answers) {
      if (seen.has(questionId)) throw new ApiError('invalid-param', `questionValues names question ${questionId} twice.`);
      seen.add(questionId);
      checkValue(this.#config(questionId, 'invalid-question-id'), value);
    }
  }

  /** Stores one result (its question counts one more use) and announces it on its page. */
  async #record(input: QuestionResultInput): Promise<QuestionResultDoc> {
    const config = this.#config(input.questionId!, 'invalid-question-id');
    checkValue(config, input.value!);
    const now = clock.now();
    const createdAt = new Date(now).toISOString();
    const doc: QuestionResultDoc = {
      _id: newId(now),
      tenantId: this.id,
      urlId: input.urlId!,
      questionId: config._id,
      value: input.value!,
      userId: input.userId ?? null,
      anonUserId: input.anonUserId ?? null,
      commentId: input.commentId ?? null,
      meta: input.meta ?? null,
      createdAt,
    };
    await this.#count(doc, 1);
    this.insert(RESULTS, doc);
    const used: QuestionConfigDoc = { ...config, usedCount: config.usedCount + 1, lastUsed: createdAt };
    this.#configs.set(config._id, used);
    this.patch(CONFIGS, config._id, { usedCount: used.usedCount, lastUsed: createdAt });
    this.publish(pageTopic(this.id, doc.urlId), questionResultEvent(doc));
    return doc;
  }

  /** Counts a result once more or once less in its day's and its page's tallies. */
  async #count(doc: QuestionResultDoc, delta: 1 | -1): Promise<void> {
    for (const slot of tallyKeys(doc)) {
      const tally = counted((await this.#tally(slot.id)) ?? emptyTally(this.id, doc.questionId, slot), doc.value, delta);
      this.put(QUESTION_TALLIES, tally);
      this.#tallies.set(slot.id, tally);
    }
  }

  async #tally(id: string): Promise<TallyDoc | null> {
    const known = this.#tallies.get(id);
    if (known !== undefined) return known;
    if (this.#tallies.size >= TALLIES_KEPT) {
      // Forgetting is only safe once what was written is in storage.
      await this.commitNow([]);
      this.#tallies.clear();
    }
    const stored = (await this.store.get<TallyDoc>(QUESTION_TALLIES, id)) ?? null;
    const found = stored !== null && stored.tenantId === this.id ? stored : null;
    this.#tallies.set(id, found);
    return found;
  }

  /** The storage filter of a result list, or undefined when it can match nothing. */
  #resultQuery(filter: ResultFilter): Filter | undefined {
    const query: Record<string, Filter[string]> = { tenantId: this.id };
    if (filter.urlId !== undefined) query['urlId'] = filter.urlId;
    if (filter.userId !== undefined) query['userId'] = filter.userId;
    if (filter.startDate !== undefined) query['createdAt'] = { $gte: filter.startDate };
    if (filter.questionIds !== undefined) {
      const ids = filter.questionIds.filter((id) => !this.#deleting.has(id));
      if (ids.length === 0) return undefined;
      query['questionId'] = ids.length === 1 ? ids[0]! : { $in: ids };
    } else if (this.#deleting.size > 0) query['questionId'] = { $nin: [...this.#deleting.keys()] };
    return query;
  }

  /**
   * Queues the next purge step behind this message: it waits for this message's writes to be
   * durable before it reads. A step that fails stops the purge until the next activation.
   */
  #purgeLater(questionId: string): void {
    this.system.ask(QuestionsKind, this.id, 'purge', { questionId }).catch((err: unknown) => log.warn('question-purge-failed', { tenantId: this.id, questionId, err }));
  }
}
