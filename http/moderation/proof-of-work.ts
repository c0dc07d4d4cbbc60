/**
 * Optional proof of work for anonymous posting (docs/moderation.md, "Proof of work"), switched
 * on per tenant: the ALTCHA scheme (`altcha-lib`), with no outside service and no tracking. The
 * widget fetches a challenge signed by this server, its browser solves it (a few hundred
 * thousand SHA-256 hashes), and sends the solution with the comment as `altcha` (the base64 of
 * `{challenge, solution}`). A solution is taken once in the whole cluster: the tenant's
 * moderation actor records each spent challenge, durably, until it expires.
 */
import { createChallenge, type Challenge, type Solution, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { clock } from '../../engine/clock.js';
import { ModerationKind } from '../../actors/moderation/moderation-actor.js';
import { SPEND } from '../../actors/moderation/spent-proofs.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';

/** How long a challenge may be solved. */
export const CHALLENGE_SECONDS = 10 * 60;
/** The work asked for: SHA-256 iterations per attempt (the key prefix decides the attempts). */
const COST = 1;
const ALGORITHM = 'SHA-256';

function secretOf(app: AppServices, tenantId: string): string {
  return app.liveIds.authorEditSecret(tenantId, '\u0000proof-of-work');
}

/** A new challenge for the tenant's widget. */
export async function newChallenge(app: AppServices, tenantId: string): Promise<Challenge> {
  return createChallenge({
    algorithm: ALGORITHM,
    cost: COST,
    deriveKey,
    keyPrefix: '000',
    expiresAt: Math.floor(clock.now() / 1000) + CHALLENGE_SECONDS,
    hmacSignatureSecret: secretOf(app, tenantId),
    data: { tenantId },
  });
}

/** Refuses a post without a valid, unused solution (403 `proof-of-work-required` / `proof-of-work-invalid`). */
export async function assertProofOfWork(app: AppServices, tenantId: string, altcha: string | undefined): Promise<void> {
  if (altcha === undefined || altcha === '') throw new ApiError('proof-of-work-required');
  let payload: { challenge?: Challenge; solution?: Solution };
  try {
    payload = JSON.parse(Buffer.from(altcha, 'base64').toString('utf8')) as typeof payload;
  } catch {
    throw new ApiError('proof-of-work-invalid', 'The altcha parameter is not a base64 JSON payload.');
  }
  const { challenge, solution } = payload;
  if (typeof challenge !== 'object' || challenge === null || typeof solution !== 'object' || solution === null || typeof challenge.signature !== 'string') {
    throw new ApiError('proof-of-work-invalid', 'The payload needs a signed challenge and a solution.');
  }
  if (challenge.parameters?.data?.['tenantId'] !== tenantId) throw new ApiError('proof-of-work-invalid', 'The challenge was made for another site.');
  let result;
  try {
    result = await verifySolution({ challenge, solution, deriveKey, hmacSignatureSecret: secretOf(app, tenantId) });
  } catch {
    throw new ApiError('proof-of-work-invalid');
  }
  if (!result.verified) throw new ApiError('proof-of-work-invalid', result.expired ? 'The challenge has expired: fetch a new one.' : undefined);
  // Verified, so the signed expiry is the one this server set.
  const expiresAt = Number(challenge.parameters?.expiresAt ?? 0) * 1000 || clock.now() + CHALLENGE_SECONDS * 1000;
  const outcome = await app.system.ask(ModerationKind, tenantId, 'spendProof', { signature: challenge.signature, expiresAt });
  if (outcome === SPEND.used) throw new ApiError('proof-of-work-used');
  if (outcome === SPEND.full) throw new ApiError('rate-limited', 'Too many proofs of work were spent on this site in the last minutes; retry later.');
}
