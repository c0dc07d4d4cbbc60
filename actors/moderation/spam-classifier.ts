/**
 * A per-tenant spam classifier that needs no outside service (docs/moderation.md, "Spam"): a
 * multinomial naive Bayes over the comment's words, plus features the server already knows:
 * its links and their domains, repeated words (keyword stuffing), shouting, and the author's
 * standing (trust and history, bucketed). It learns from moderators' decisions (spam / not
 * spam, approvals, bans) as they are made, and only ever suggests: a suspected comment lands
 * in the moderation queue as spam, never dropped.
 */
import type { Doc } from '../../storage/store.js';

/** The model as stored (`spam_models`, one per tenant). */
export interface SpamModel {
  spamDocs: number;
  hamDocs: number;
  spamTokens: number;
  hamTokens: number;
  /** token → [count in spam, count in ham] */
  counts: Record<string, [number, number]>;
}

/** What the server knows of the author when a comment arrives. */
export interface AuthorSignals {
  /** 0–100, or null when unknown. */
  readonly trust: number | null;
  /** Comments of theirs moderators let stand before, or null when unknown. */
  readonly history: number | null;
}

/** Distinct tokens a model keeps; past it, the rarest are pruned. */
export const MAX_VOCABULARY = 20_000;
/** Decisions of each kind the model needs before it gives a verdict. */
export const MIN_DECISIONS = 5;
/** Probability of spam from which a comment is suspected. */
export const SPAM_THRESHOLD = 0.9;

/**
 * The model as a stored document: tokens and their counts as three parallel lists, since
 * tokens (link hosts) hold dots that a MongoDB field name may not, and not every
 * MongoDB-compatible server stores nested arrays.
 */
export function modelDoc(tenantId: string, model: SpamModel): Doc {
  const tokens = Object.keys(model.counts);
  return {
    _id: tenantId,
    tenantId,
    spamDocs: model.spamDocs,
    hamDocs: model.hamDocs,
    spamTokens: model.spamTokens,
    hamTokens: model.hamTokens,
    tokens,
    spamCounts: tokens.map((t) => model.counts[t]![0]),
    hamCounts: tokens.map((t) => model.counts[t]![1]),
  };
}

/** The model of a stored document. */
export function modelFromDoc(doc: Doc): SpamModel {
  const counts: Record<string, [number, number]> = Object.create(null) as Record<string, [number, number]>;
  const tokens = doc['tokens'] as string[];
  const spam = doc['spamCounts'] as number[];
  const ham = doc['hamCounts'] as number[];
  tokens.forEach((token, i) => (counts[token] = [spam[i]!, ham[i]!]));
  return { spamDocs: Number(doc['spamDocs']), hamDocs: Number(doc['hamDocs']), spamTokens: Number(doc['spamTokens']), hamTokens: Number(doc['hamTokens']), counts };
}

/** An empty model. */
export function emptyModel(): SpamModel {
  // No prototype: a word such as "constructor" is a token like any other.
  return { spamDocs: 0, hamDocs: 0, spamTokens: 0, hamTokens: 0, counts: Object.create(null) as Record<string, [number, number]> };
}

const LINK = /https?:\/\/([^\s/?#)"'<>]+)|\bwww\.([^\s/?#)"'<>]+)/gi;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'-]{1,29}/gu;

/** The features of a comment: its words, and tokens for links, repeats, shouting and the author. */
export function features(text: string, author: AuthorSignals = { trust: null, history: null }): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  let links = 0;
  for (const m of lower.matchAll(LINK)) {
    links++;
    const host = (m[1] ?? m[2] ?? '').replace(/^www\./, '');
    out.push(`__host:${host}`);
    const tld = host.split('.').pop();
    if (tld) out.push(`__tld:${tld}`);
  }
  out.push(`__links:${links === 0 ? 0 : links === 1 ? 1 : links < 4 ? 2 : 4}`);
  const words = lower.replace(LINK, ' ').match(WORD) ?? [];
  const seen = new Map<string, number>();
  for (const word of words) {
    out.push(word);
    seen.set(word, (seen.get(word) ?? 0) + 1);
  }
  const stuffed = [...seen.values()].some((n) => n >= 4 && n / Math.max(words.length, 1) > 0.15);
  if (stuffed) out.push('__stuffed');
  const letters = text.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 12 && letters.replace(/[^\p{Lu}]/gu, '').length / letters.length > 0.6) out.push('__shouting');
  if (/(.)\1{5,}/u.test(text)) out.push('__repeat-char');
  if (/[$€£]\s?\d|\d+\s?%\s?off|\bfree\b.*\bnow\b/i.test(text)) out.push('__money');
  if (author.trust !== null) out.push(`__trust:${author.trust < 30 ? 'low' : author.trust < 70 ? 'mid' : 'high'}`);
  if (author.history !== null) out.push(`__history:${author.history === 0 ? 'none' : author.history < 5 ? 'some' : 'many'}`);
  return out;
}

/** Learns one decision (mutates the model). */
export function train(model: SpamModel, tokens: readonly string[], spam: boolean): void {
  const i = spam ? 0 : 1;
  if (spam) model.spamDocs++;
  else model.hamDocs++;
  for (const token of tokens) {
    const entry = (model.counts[token] ??= [0, 0]);
    entry[i]++;
    if (spam) model.spamTokens++;
    else model.hamTokens++;
  }
  const keys = Object.keys(model.counts);
  if (keys.length > MAX_VOCABULARY) prune(model, keys);
}

/** Drops the rarest tokens until the vocabulary is back to nine tenths of its bound. */
function prune(model: SpamModel, keys: string[]): void {
  keys.sort((a, b) => sum(model.counts[a]!) - sum(model.counts[b]!));
  for (const key of keys.slice(0, keys.length - Math.floor(MAX_VOCABULARY * 0.9))) {
    const [s, h] = model.counts[key]!;
    model.spamTokens -= s;
    model.hamTokens -= h;
    delete model.counts[key];
  }
}

const sum = ([s, h]: [number, number]): number => s + h;

/** Probability (0–1) that the tokens are spam, or null while the model has too few decisions. */
export function spamProbability(model: SpamModel, tokens: readonly string[]): number | null {
  if (model.spamDocs < MIN_DECISIONS || model.hamDocs < MIN_DECISIONS) return null;
  const vocabulary = Object.keys(model.counts).length + 1;
  let logOdds = Math.log(model.spamDocs / model.hamDocs);
  for (const token of new Set(tokens)) {
    const [s, h] = model.counts[token] ?? [0, 0];
    if (s + h === 0) continue; // never seen: says nothing either way
    logOdds += Math.log((s + 1) / (model.spamTokens + vocabulary)) - Math.log((h + 1) / (model.hamTokens + vocabulary));
  }
  return 1 / (1 + Math.exp(-Math.max(-50, Math.min(50, logOdds))));
}

/** Whether the comment is suspected spam. */
export function isSuspected(model: SpamModel, tokens: readonly string[]): boolean {
  const p = spamProbability(model, tokens);
  return p !== null && p >= SPAM_THRESHOLD;
}
