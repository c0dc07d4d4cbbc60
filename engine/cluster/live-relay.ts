/**
 * Live events across nodes. Each page (and each user) has a NATS subject,
 * `<cluster>.live.p.<tenantId>.<digest of urlId>` (`.u.` for users); a tenant's own server
 * events go on `<cluster>.live.t.<tenantId>`. The node whose actor published an event fans it
 * out to its own sockets and logs it, then sends it, stamped, on the subject; every other node
 * that has sockets on that page hears it and hands it to its own uWS topic. NATS keeps one
 * publisher's messages in order per subject, so a page's events arrive in commit order, and a
 * node forwards each once (its own events come back to it and are skipped).
 *
 * A node follows a page's subject from the moment a socket is admitted to it (the upgrade
 * waits until NATS has the interest), and stops following a subject nobody here has listened
 * to for two sweeps. Tenant subjects are always followed: they carry `access-changed`, which
 * every node must hear to re-check its readers.
 */
import { createHash } from 'node:crypto';
import type { Subscription } from '@nats-io/nats-core';
import type { EventBus } from '../event-bus.js';
import { log } from '../log.js';
import { pack, unpack } from './frames.js';
import type { NatsLink } from './nats-link.js';

const SWEEP_MS = 30_000;
const MAX_SUBJECTS_CACHED = 10_000;

/** Whether anyone on this node listens to a topic (the uWS topic's subscriber count). */
export type LocalInterest = (topic: string) => number;

export class LiveRelay {
  readonly #link: NatsLink;
  readonly #bus: EventBus;
  readonly #prefix: string;
  readonly #nodeId: string;
  readonly #subjects = new Map<string, string>();
  /** Followed subject → its subscription, the topic, and whether it was idle at the last sweep. */
  readonly #follows = new Map<string, { sub: Subscription; topic: string; idle: boolean }>();
  #interest: LocalInterest = () => 0;
  #sweep: NodeJS.Timeout | undefined;

  constructor(link: NatsLink, bus: EventBus, prefix: string, nodeId: string) {
    this.#link = link;
    this.#bus = bus;
    this.#prefix = `${prefix}.live`;
    this.#nodeId = nodeId;
  }

  /** Follows every tenant's server events, and starts the sweeper; `interest` counts local listeners. */
  start(interest: LocalInterest): void {
    this.#interest = interest;
    this.#link.nc.subscribe(`${this.#prefix}.t.*`, { callback: (err, msg) => (err ? undefined : this.#heard(msg.data)) });
    this.#sweep = setInterval(() => this.#sweepIdle(), SWEEP_MS);
    this.#sweep.unref();
  }

  stop(): void {
    clearInterval(this.#sweep);
  }

  /** Sends an event published on this node to the nodes following its topic. */
  readonly send = (topic: string, event: unknown): void => {
    const subject = this.#subject(topic);
    if (subject === undefined || !this.#link.connected) return;
    this.#link.nc.publish(subject, pack([this.#nodeId, topic, event]));
  };

  /** Follows `topics` from now on; resolves once NATS has the interest (events sent after it arrive). */
  readonly follow = async (topics: readonly string[]): Promise<void> => {
    let added = false;
    for (const topic of topics) {
      const subject = this.#subject(topic);
      if (subject === undefined || subject.startsWith(`${this.#prefix}.t.`)) continue;
      const followed = this.#follows.get(subject);
      if (followed !== undefined) {
        followed.idle = false;
        continue;
      }
      const sub = this.#link.nc.subscribe(subject, { callback: (err, msg) => (err ? undefined : this.#heard(msg.data)) });
      this.#follows.set(subject, { sub, topic, idle: false });
      added = true;
    }
    if (added && this.#link.connected) await this.#link.nc.flush();
  };

  #subject(topic: string): string | undefined {
    let subject = this.#subjects.get(topic);
    if (subject !== undefined) return subject;
    const first = topic.indexOf(':');
    const second = topic.indexOf(':', first + 1);
    const kind = topic.slice(0, first);
    if (kind === 'tenant') subject = `${this.#prefix}.t.${topic.slice(first + 1)}`;
    else if ((kind === 'page' || kind === 'user') && second > first) {
      // Subject tokens cannot hold every character a urlId can: a digest stands for it (a
      // collision only makes a node hear a foreign topic, which it drops for want of sockets).
      const digest = createHash('sha256').update(topic.slice(second + 1)).digest('base64url').slice(0, 22);
      subject = `${this.#prefix}.${kind[0]}.${topic.slice(first + 1, second)}.${digest}`;
    } else return undefined;
    if (this.#subjects.size >= MAX_SUBJECTS_CACHED) this.#subjects.clear();
    this.#subjects.set(topic, subject);
    return subject;
  }

  #heard(data: Uint8Array): void {
    let frame: [string, string, unknown];
    try {
      frame = unpack(data) as [string, string, unknown];
    } catch (err) {
      log.warn('cluster-live-undecodable', { err });
      return;
    }
    const [origin, topic, event] = frame;
    if (origin === this.#nodeId) return;
    this.#bus.publish(topic, event, true);
  }

  #sweepIdle(): void {
    for (const [subject, followed] of this.#follows) {
      if (this.#interest(followed.topic) > 0) followed.idle = false;
      else if (!followed.idle) followed.idle = true;
      else {
        followed.sub.unsubscribe();
        this.#follows.delete(subject);
      }
    }
  }
}
