/**
 * Vote frames of hot pages folded into `cvc` frames. Each vote event costs one frame per
 * subscriber; a page with many subscribers and many votes a second would spend the event loop
 * writing frames. When a page's vote events in the last second times its subscribers reach
 * `threshold`, its vote events (`new-vote`, `deleted-vote`) are not sent one by one but summed
 * per comment over a window of `windowMs` and sent as one `cvc` frame whose `changes` maps each
 * comment id to its net change of `votes` (up minus down), and whose `counts` gives each
 * comment's counts after the window's last vote (`{votes, votesUp, votesDown}`, as vote events
 * carry them): a client that already applied its own vote sets the counts instead of adding a
 * delta that includes it. Any other event of the page first sends the window's `cvc`, so frames
 * keep their order. Only delivery changes: the event log still gets every vote event, so a client
 * catching up from it sees the same counts.
 */
import { LIVE_EVENT_TYPES, type LiveEvent } from '../../actors/live/live-events.js';

/** Sends an event to a page topic's sockets. */
export type TopicSend = (topic: string, event: LiveEvent) => void;

/** A comment's counts after a vote, as vote events carry them. */
interface Counts {
  votes: number;
  votesUp: number;
  votesDown: number;
}

/** One comment's part of a window: its net change, and its counts after the window's newest vote. */
interface Pending {
  delta: number;
  counts: Counts | undefined;
}

interface TopicState {
  /** Start of the current one-second bucket, and vote events in it and in the one before. */
  bucketStart: number;
  votes: number;
  previousVotes: number;
  /** The window being summed, if any: net vote changes per comment, and the newest stamp. */
  pending: Map<string, Pending> | null;
  stamp: number;
  timer: NodeJS.Timeout | undefined;
}

const BUCKET_MS = 1000;
/** Topics without a vote for this long are forgotten. */
const IDLE_MS = 5000;

/** The net change of `votes` a vote event makes on its comment, or null when it is no vote event. */
function voteChange(event: LiveEvent): { commentId: string; delta: number; counts: Counts | undefined } | null {
  if (event.type !== LIVE_EVENT_TYPES.newVote && event.type !== LIVE_EVENT_TYPES.deletedVote) return null;
  const vote = event.vote;
  const commentId = vote?.['commentId'];
  const direction = vote?.['direction'];
  if (typeof commentId !== 'string' || typeof direction !== 'number') return null;
  const sign = direction > 0 ? 1 : direction < 0 ? -1 : 0;
  const c = event['counts'] as Partial<Counts> | undefined;
  const counts = typeof c?.votes === 'number' && typeof c.votesUp === 'number' && typeof c.votesDown === 'number' ? { votes: c.votes, votesUp: c.votesUp, votesDown: c.votesDown } : undefined;
  return { commentId, delta: event.type === LIVE_EVENT_TYPES.newVote ? sign : -sign, counts };
}

/** Folds the vote frames of hot page topics; see the module comment. */
export class VoteCoalescer {
  readonly #topics = new Map<string, TopicState>();
  readonly #send: TopicSend;
  readonly #threshold: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #sweeper: NodeJS.Timeout | undefined;

  /** `threshold`: vote events per second × subscribers from which votes are folded (0: never). */
  constructor(send: TopicSend, threshold: number, windowMs: number, now: () => number = Date.now) {
    this.#send = send;
    this.#threshold = threshold;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Delivers an event of a page topic with `listening` subscribers, folding it when the page is hot. */
  deliver(topic: string, event: LiveEvent, listening: number): void {
    if (this.#threshold <= 0) {
      if (listening > 0) this.#send(topic, event);
      return;
    }
    const change = voteChange(event);
    let state = this.#topics.get(topic);
    if (change === null) {
      if (state?.pending != null) this.#flush(topic, state);
      if (listening > 0) this.#send(topic, event);
      return;
    }
    const now = this.#now();
    if (state === undefined) {
      state = { bucketStart: now, votes: 0, previousVotes: 0, pending: null, stamp: 0, timer: undefined };
      this.#topics.set(topic, state);
      this.#sweep();
    }
    if (now - state.bucketStart >= BUCKET_MS) {
      state.previousVotes = now - state.bucketStart >= 2 * BUCKET_MS ? 0 : state.votes;
      state.votes = 0;
      state.bucketStart = now;
    }
    state.votes++;
    if (listening === 0) {
      if (state.pending !== null) this.#flush(topic, state);
      return;
    }
    const rate = Math.max(state.votes, state.previousVotes);
    if (state.pending === null && rate * listening < this.#threshold) {
      this.#send(topic, event);
      return;
    }
    if (state.pending === null) {
      state.pending = new Map();
      state.timer = setTimeout(() => this.#flush(topic, state), this.#windowMs);
    }
    const held = state.pending.get(change.commentId);
    // Events of a topic arrive in the order their writes became durable, so the newest counts win.
    if (held === undefined) state.pending.set(change.commentId, { delta: change.delta, counts: change.counts });
    else {
      held.delta += change.delta;
      held.counts = change.counts ?? held.counts;
    }
    state.stamp = Math.max(state.stamp, event.timestamp);
  }

  /** Sends the window's `cvc` frame of a topic. */
  #flush(topic: string, state: TopicState): void {
    clearTimeout(state.timer);
    state.timer = undefined;
    const pending = state.pending;
    state.pending = null;
    if (pending === null) return;
    const changes: Record<string, number> = Object.create(null) as Record<string, number>;
    const counts: Record<string, Counts> = Object.create(null) as Record<string, Counts>;
    let any = false;
    for (const [id, held] of pending) {
      // A window may leave `votes` as it was yet move up and down (one up, another down).
      if (held.counts !== undefined) {
        counts[id] = held.counts;
        any = true;
      }
      if (held.delta === 0) continue;
      changes[id] = held.delta;
      any = true;
    }
    if (any) this.#send(topic, { type: LIVE_EVENT_TYPES.commentVoteCount, timestamp: state.stamp, ts: state.stamp, changes, counts });
  }

  /** Forgets idle topics now and then, so pages long quiet hold nothing. */
  #sweep(): void {
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => {
      const now = this.#now();
      for (const [topic, state] of this.#topics) if (state.pending === null && now - state.bucketStart > IDLE_MS) this.#topics.delete(topic);
      if (this.#topics.size === 0) {
        clearInterval(this.#sweeper);
        this.#sweeper = undefined;
      }
    }, IDLE_MS);
    this.#sweeper.unref();
  }

  /** Sends every pending window and stops the sweeper (at shutdown). */
  close(): void {
    for (const [topic, state] of this.#topics) this.#flush(topic, state);
    this.#topics.clear();
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}
