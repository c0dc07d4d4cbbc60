/**
 * The rate limit on anonymous poll votes: per address, per poll, over a sliding window.
 * Kept in the poll actor's memory only: it protects a poll from one address stuffing it, and
 * forgetting it on a restart or a passivation (idle far longer than the window) costs nothing.
 */

/** Anonymous votes one address may cast in one poll per window. Documented in docs/polls.md. */
export const ANON_VOTE_RATE_LIMIT = { votes: 30, windowMs: 60_000 } as const;
