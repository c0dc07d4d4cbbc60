/**
 * `moderation:<tenantId>`: a tenant's bans, the moderation log of its comments, its moderators'
 * ban preferences and manual trust factors (docs/moderation.md). Bans are held in memory (a
 * tenant has few), so every write path checks a writer with one message and no storage read.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { type AffectedComment, type BanDoc, BANNED_USERS, type BanMatchType, inForce, matchOf, type Writer } from './ban-model.js';
import {
  BAN_PREFERENCES,
  type BanPreferenceDoc,
  escapeHtml,
  type ModerationAction,
  type ModerationLogDoc,
  MODERATION_LOGS,
  MODERATION_EXPORTS,
  type ModerationExportDoc,
  MODERATION_SETTINGS,
  type ModerationSettings,
  SPAM_MODELS,
  TRUST_FACTORS,
  type TrustFactorDoc,
} from './moderation-model.js';
import { SPEND, type SpendOutcome, SPENT_PROOFS, type SpentProofDoc, SpentProofs, spentProofId } from './spent-proofs.js';
import { emptyModel, features, modelDoc, modelFromDoc, type SpamModel, spamProbability, SPAM_THRESHOLD, train } from './spam-classifier.js';

/** A ban in force on a writer. */
export interface BanHit {
  readonly banId: string;
  readonly banType: string;
  readonly bannedUntil: string | null;
  readonly match: BanMatchType;
}

/** What a new ban names (the route resolved it from the comment). */
export type BanInput = Pick<BanDoc, 'userId' | 'email' | 'username' | 'ipHash' | 'bannedByUserId' | 'bannedCommentText' | 'banType' | 'bannedUntil' | 'hasEmailWildcard' | 'banReason'>;

export type ModerationProtocol = {
  /** The ban in force on the writer, the longest first, or null. */
  check: { in: { writer: Writer }; out: BanHit | null };
  /**
   * A new comment's screening: the ban in force on its writer, and whether the tenant's spam
   * classifier suspects it (`probability` null while it has too few decisions to judge).
   */
  screen: { in: { writer: Writer; text: string }; out: { ban: BanHit | null; suspected: boolean; probability: number | null; settings: ModerationSettings } };
  getSettings: { in: null; out: ModerationSettings };
  /** Records a new export job (durable when answered). */
  createExport: { in: { job: ModerationExportDoc }; out: null };
  finishExport: { in: { jobId: string; recordCount: number; failed: boolean }; out: null };
  /** The job, if it is this tenant's. */
  getExport: { in: { jobId: string }; out: ModerationExportDoc | null };
  setSettings: { in: { settings: ModerationSettings }; out: ModerationSettings };
  /** Teaches the spam classifier a moderator's decision about a comment's text. */
  learn: { in: { text: string; spam: boolean; userId: string | null }; out: null };
  /** Bans matching the writer (in force or not), with how each matches. */
  matching: { in: { writer: Writer }; out: { ban: BanDoc; matches: BanMatchType[] }[] };
  /**
   * Bans: updates the ban that matches the same person the same way, else creates one. Answers
   * the change log (the created id, or the updated id with its values before).
   */
  ban: { in: { input: BanInput }; out: { createdBannedUserId?: string; updatedBannedUserId?: string; changedValuesBefore?: BanDoc } };
  /** Records the comments a created ban changed (appended to those already recorded). */
  banAffected: { in: { banId: string; affected: readonly AffectedComment[] }; out: null };
  /**
   * Undoes `ban`: removes the created ban (answering the comments it changed, for the route to
   * restore), or restores the updated one as it was.
   */
  undoBan: { in: { createdBannedUserId?: string; updatedBannedUserId?: string; changedValuesBefore?: Record<string, unknown> }; out: AffectedComment[] };
  /** Bans in force. */
  countBans: { in: null; out: number };
  log: { in: { commentId: string; userId: string; username: string; action: ModerationAction; message: string }; out: null };
  logs: { in: { commentId: string }; out: ModerationLogDoc[] };
  getPreference: { in: { userId: string }; out: BanPreferenceDoc | null };
  setPreference: { in: { userId: string; preference: Pick<BanPreferenceDoc, 'shouldBanEmail' | 'shouldBanByIP' | 'lastBanType' | 'lastBanDuration'> }; out: null };
  getTrust: { in: { userId: string }; out: number | null };
  /** Takes a solved proof-of-work challenge once (answered once the record is durable). */
  spendProof: { in: { signature: string; expiresAt: number }; out: SpendOutcome };
  setTrust: { in: { userId: string; trustFactor: number }; out: null };
};

/** `moderation:<tenantId>` */
export const ModerationKind = defineKind<ModerationProtocol>('moderation');

/** Views the moderation actor publishes (read with `system.peek`; absent: ask). */
export const MODERATION_VIEWS = {
  /** How many bans the tenant has stored (0: no writer can be banned, no need to ask). */
  banCount: 'banCount',
} as const;

/** Ids of per-user documents: one per tenant and user. */
const perUser = (tenantId: string, userId: string): string => `${tenantId}:${userId}`;

export class ModerationActor extends Actor<ModerationProtocol> {
  readonly #bans = new Map<string, BanDoc>();
  readonly #preferences = new Map<string, BanPreferenceDoc>();
  readonly #trust = new Map<string, number>();
  #model: SpamModel = emptyModel();
  #settings: ModerationSettings = { requireProofOfWork: false };
  readonly #spent = new SpentProofs();

  override async onStart(): Promise<void> {
    for (const doc of await this.store.find<BanDoc>(BANNED_USERS, { tenantId: this.id })) this.#bans.set(doc._id, doc);
    for (const doc of await this.store.find<BanPreferenceDoc>(BAN_PREFERENCES, { tenantId: this.id })) this.#preferences.set(doc.userId, doc);
    for (const doc of await this.store.find<TrustFactorDoc>(TRUST_FACTORS, { tenantId: this.id })) this.#trust.set(doc.userId, doc.trustFactor);
    const stored = await this.store.get(SPAM_MODELS, this.id);
    if (stored !== undefined) this.#model = modelFromDoc(stored);
    const settings = await this.store.get(MODERATION_SETTINGS, this.id);
    if (settings !== undefined) this.#settings = { requireProofOfWork: settings['requireProofOfWork'] === true };
    const spent = await this.store.find<SpentProofDoc>(SPENT_PROOFS, { tenantId: this.id }, { sort: [['expiresAt', 1]] });
    for (const doc of spent) this.#spent.load(doc._id.slice(this.id.length + 1), doc.expiresAt);
    this.setView(MODERATION_VIEWS.banCount, this.#bans.size);
  }

  #tokens(text: string, userId: string | null): string[] {
    const trust = userId === null ? null : (this.#trust.get(userId) ?? null);
    return features(text, { trust, history: null });
  }

  readonly handlers: Handlers<ModerationProtocol> = {
    check: ({ writer }) => {
      this.allowUnconfirmed();
      const now = clock.now();
      let best: BanHit | null = null;
      for (const ban of this.#bans.values()) {
        if (!inForce(ban, now)) continue;
        const match = matchOf(ban, writer);
        if (match === null) continue;
        if (best === null || ban.bannedUntil === null || (best.bannedUntil !== null && ban.bannedUntil > best.bannedUntil)) {
          best = { banId: ban._id, banType: ban.banType, bannedUntil: ban.bannedUntil, match };
        }
      }
      return best;
    },

    screen: ({ writer, text }) => {
      this.allowUnconfirmed();
      const ban = this.handlers.check({ writer }) as BanHit | null;
      const probability = spamProbability(this.#model, this.#tokens(text, writer.userId));
      return { ban, suspected: probability !== null && probability >= SPAM_THRESHOLD, probability, settings: this.#settings };
    },

    getSettings: () => this.#settings,

    createExport: ({ job }) => {
      this.put(MODERATION_EXPORTS, { ...job, tenantId: this.id });
      return null;
    },

    finishExport: async ({ jobId, recordCount, failed }) => {
      const job = await this.store.get<ModerationExportDoc>(MODERATION_EXPORTS, jobId);
      if (job === undefined || job.tenantId !== this.id) return null;
      this.put(MODERATION_EXPORTS, { ...job, recordCount, jobStatus: failed ? 'failed' : 'done' });
      return null;
    },

    getExport: async ({ jobId }) => {
      const job = await this.store.get<ModerationExportDoc>(MODERATION_EXPORTS, jobId);
      return job !== undefined && job.tenantId === this.id ? job : null;
    },

    setSettings: ({ settings }) => {
      this.#settings = { requireProofOfWork: settings.requireProofOfWork };
      this.put(MODERATION_SETTINGS, { _id: this.id, tenantId: this.id, ...this.#settings });
      return this.#settings;
    },

    learn: ({ text, spam, userId }) => {
      train(this.#model, this.#tokens(text, userId), spam);
      this.put(SPAM_MODELS, modelDoc(this.id, this.#model));
      return null;
    },

    matching: ({ writer }) => {
      const out: { ban: BanDoc; matches: BanMatchType[] }[] = [];
      for (const ban of this.#bans.values()) {
        const match = matchOf(ban, writer);
        if (match !== null) out.push({ ban, matches: [match] });
      }
      return out;
    },

    ban: ({ input }) => {
      const same = [...this.#bans.values()].find((b) => b.userId === input.userId && b.email === input.email && b.ipHash === input.ipHash && b.hasEmailWildcard === input.hasEmailWildcard);
      if (same !== undefined) {
        const next: BanDoc = { ...same, ...input, _id: same._id, tenantId: this.id, createdAt: same.createdAt };
        this.#saveBan(next);
        const { affected: _affected, ...before } = same;
        return { updatedBannedUserId: same._id, changedValuesBefore: before as BanDoc };
      }
      const now = clock.now();
      const doc = { ...input, _id: newId(now), tenantId: this.id, createdAt: new Date(now).toISOString() } as BanDoc;
      this.#saveBan(doc);
      return { createdBannedUserId: doc._id };
    },

    banAffected: ({ banId, affected }) => {
      const ban = this.#bans.get(banId);
      if (ban !== undefined && affected.length > 0) this.#saveBan({ ...ban, affected: [...(ban.affected ?? []), ...affected] });
      return null;
    },

    undoBan: ({ createdBannedUserId, updatedBannedUserId, changedValuesBefore }) => {
      let affected: AffectedComment[] = [];
      if (createdBannedUserId !== undefined) {
        const ban = this.#bans.get(createdBannedUserId);
        if (ban === undefined) throw new ApiError('not-found', `No ban ${createdBannedUserId}.`);
        affected = ban.affected ?? [];
        this.#bans.delete(createdBannedUserId);
        this.remove(BANNED_USERS, createdBannedUserId);
        this.setView(MODERATION_VIEWS.banCount, this.#bans.size);
      }
      if (updatedBannedUserId !== undefined) {
        const current = this.#bans.get(updatedBannedUserId);
        if (current === undefined || changedValuesBefore === undefined) throw new ApiError('not-found', `No ban ${updatedBannedUserId} to restore.`);
        this.#saveBan({ ...current, ...changedValuesBefore, _id: current._id, tenantId: this.id, affected: current.affected ?? [] } as BanDoc);
      }
      return affected;
    },

    countBans: () => {
      const now = clock.now();
      let n = 0;
      for (const ban of this.#bans.values()) if (inForce(ban, now)) n++;
      return n;
    },

    log: ({ commentId, userId, username, action, message }) => {
      const now = clock.now();
      const doc: ModerationLogDoc = { _id: newId(now), tenantId: this.id, commentId, date: new Date(now).toISOString(), userId, username, actionName: action, messageHTML: escapeHtml(message) };
      this.insert(MODERATION_LOGS, doc);
      return null;
    },

    logs: async ({ commentId }) => this.store.find<ModerationLogDoc>(MODERATION_LOGS, { tenantId: this.id, commentId }, { sort: [['date', 1]], limit: 1000 }),

    getPreference: ({ userId }) => this.#preferences.get(userId) ?? null,

    setPreference: ({ userId, preference }) => {
      const doc = { ...preference, _id: perUser(this.id, userId), tenantId: this.id, userId } as BanPreferenceDoc;
      this.#preferences.set(userId, doc);
      this.put(BAN_PREFERENCES, doc);
      return null;
    },

    getTrust: ({ userId }) => this.#trust.get(userId) ?? null,

    spendProof: ({ signature, expiresAt }) => {
      const expired: string[] = [];
      const outcome = this.#spent.spend(signature, expiresAt, clock.now(), expired);
      for (const old of expired) this.remove(SPENT_PROOFS, spentProofId(this.id, old));
      if (outcome === SPEND.spent) this.put(SPENT_PROOFS, { _id: spentProofId(this.id, signature), tenantId: this.id, expiresAt } satisfies SpentProofDoc);
      return outcome;
    },

    setTrust: ({ userId, trustFactor }) => {
      this.#trust.set(userId, trustFactor);
      this.put(TRUST_FACTORS, { _id: perUser(this.id, userId), tenantId: this.id, userId, trustFactor });
      return null;
    },
  };

  #saveBan(doc: BanDoc): void {
    this.#bans.set(doc._id, doc);
    this.put(BANNED_USERS, doc);
    this.setView(MODERATION_VIEWS.banCount, this.#bans.size);
  }
}
