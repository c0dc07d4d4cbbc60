/**
 * Cluster mode's `ask` and `peek`. An ask for an actor of a shard this node holds is delivered
 * here, exactly as in a single process; any other travels as a NATS request to the node holding
 * the shard (`<cluster>.node.<id>`), with the caller's remaining time, and comes back as the
 * actor's answer or its error. A node that does not hold the shard when a request arrives (or
 * loses it before the message started) answers MOVED: nothing ran, so the caller sends it on to
 * the new owner, never twice to anyone. While the owner is unknown (a shard changing hands) the
 * caller waits for the lease table, up to its deadline. While NATS is unreachable, anything
 * that would need it fails at once with `cluster-unavailable`.
 */
import type { Msg } from '@nats-io/nats-core';
import type { ActorKind, Protocol } from '../actor.js';
import type { ActorCell } from '../actor-cell.js';
import type { ActorRouter, ActorSystem } from '../actor-system.js';
import { ApiError } from '../errors.js';
import { log } from '../log.js';
import { type AskFrame, FRAME, fromWire, pack, type PassivateFrame, REPLY, type ReplyFrame, toWire, unpack, type ViewFrame } from './frames.js';
import type { NatsLink } from './nats-link.js';
import type { ShardLeases, ShardRoute } from './shard-leases.js';
import { ShardMoved } from './shard-moved.js';
import { shardOf } from './shards.js';
import type { ViewReplicas } from './view-replicas.js';
import { countForwarded } from '../metrics/cluster-meters.js';

/** How long a shard being handed over still serves actors already active on it. */
const DRAIN_GRACE_MS = 1000;
/** The owner answers this long before the caller stops waiting, so its own timeout arrives. */
const REPLY_SLACK_MS = 200;
/** Longest wait for the lease table before looking again. */
const ROUTE_POLL_MS = 50;

const unavailable = () => new ApiError('cluster-unavailable', 'NATS is unreachable from this node; nothing was changed. Retry later.');

function nodeSubject(prefix: string, node: string): string {
  return `${prefix}.node.${node}`;
}

export class ClusterRouter implements ActorRouter {
  readonly #system: ActorSystem;
  readonly #leases: ShardLeases;
  readonly #link: NatsLink;
  readonly #views: ViewReplicas;
  readonly #prefix: string;
  readonly #shards: number;
  readonly #kinds = new Map<string, ActorKind<Protocol>>();
  /** Activations since start, by node-local counting (for tests and operators). */
  activations = 0;

  constructor(system: ActorSystem, leases: ShardLeases, link: NatsLink, views: ViewReplicas, prefix: string) {
    this.#system = system;
    this.#leases = leases;
    this.#link = link;
    this.#views = views;
    this.#prefix = prefix;
    this.#shards = leases.shards;
  }

  /** Starts answering other nodes' requests. */
  start(): void {
    this.#link.nc.subscribe(nodeSubject(this.#prefix, this.#leases.nodeId), { callback: (err, msg) => (err ? log.warn('cluster-serve-failed', { err }) : this.#serve(msg)) });
  }

  ask(kind: ActorKind<Protocol>, id: string, type: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    return this.#send(kind, id, shardOf(`${kind.name}:${id}`, this.#shards), type, payload, Date.now() + timeoutMs);
  }

  async passivateTenant(tenantId: string, exceptKind: string, timeoutMs: number): Promise<number> {
    const counts = await Promise.all(
      this.#leases.liveNodes().map(async (node) => {
        if (node === this.#leases.nodeId) return this.#system.passivateTenantHere(tenantId, exceptKind, timeoutMs);
        if (!this.#link.connected) throw unavailable();
        // A node gone (no responders) holds no actors; one that does not answer makes the caller retry.
        const reply = await this.#request(node, [FRAME.passivate, tenantId, exceptKind, timeoutMs], timeoutMs + 5000);
        if (reply === undefined) return 0;
        if (reply[0] === REPLY.err) throw fromWire(reply[1]);
        return reply[0] === REPLY.ok ? Number(reply[1]) : 0;
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  peek(kind: ActorKind<Protocol>, id: string, name: string, entry: string): unknown {
    const key = `${kind.name}:${id}`;
    const shard = shardOf(key, this.#shards);
    const route = this.#leases.route(shard);
    if (route.kind === 'here' || route.kind === 'draining') return this.#system.peekHere(kind, id, name, entry);
    return this.#views.read(kind.name, id, key, shard, name, entry, route);
  }

  onActivate(cell: ActorCell): void {
    this.activations++;
    log.debug('actor-activated', { key: cell.key, shard: cell.fence?.shard, epoch: cell.fence?.epoch });
  }

  onView(cell: ActorCell, name: string | null, key: string | null, value: unknown): void {
    this.#views.changed(cell, name, key, value);
  }

  async #send(kind: ActorKind<Protocol>, id: string, shard: number, type: string, payload: unknown, deadline: number): Promise<unknown> {
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw this.#link.connected
          ? new ApiError('cluster-unavailable', 'No node took up the shard holding this data in time; nothing was changed. Retry later.')
          : unavailable();
      }
      const route = this.#leases.route(shard);
      if (route.kind === 'here' || (route.kind === 'draining' && performance.now() - route.since < DRAIN_GRACE_MS)) {
        const asked = this.#system.askHere(kind, id, type, payload, left, route.fence, route.kind === 'here');
        if (asked !== undefined) {
          try {
            return await asked;
          } catch (err) {
            if (!(err instanceof ShardMoved)) throw err;
          }
        }
      } else if (route.kind === 'node') {
        if (!this.#link.connected) throw unavailable();
        const sentAt = performance.now();
        const reply = await this.#request(route.node, [FRAME.ask, kind.name, id, type, payload, Math.max(1, left - Math.min(REPLY_SLACK_MS, left / 10))], left);
        countForwarded(reply === undefined ? 'unreachable' : reply[0] === REPLY.ok ? 'ok' : reply[0] === REPLY.err ? 'error' : 'moved', (performance.now() - sentAt) / 1000);
        if (reply !== undefined) {
          if (reply[0] === REPLY.ok) return reply[1];
          if (reply[0] === REPLY.err) throw fromWire(reply[1]);
        }
      }
      if (!this.#link.connected) throw unavailable();
      await this.#leases.changed(Math.min(ROUTE_POLL_MS, left));
    }
  }

  /** One request to a node; undefined when it cannot be reached (gone, or not yet replaced). */
  async #request(node: string, frame: AskFrame | ViewFrame | PassivateFrame, timeoutMs: number): Promise<ReplyFrame | undefined> {
    let msg: Msg;
    try {
      msg = await this.#link.nc.request(nodeSubject(this.#prefix, node), pack(frame), { timeout: timeoutMs });
    } catch (err) {
      const name = (err as Error)?.name;
      const message = String((err as Error)?.message);
      if (name === 'NoRespondersError' || /no responders/i.test(message)) return undefined;
      if (name === 'TimeoutError' || /timeout/i.test(message)) throw new ApiError('timeout');
      throw unavailable();
    }
    return unpack(msg.data) as ReplyFrame;
  }

  /** Asks `node` for one entry of a view it publishes (a replica filling itself). */
  requestView(node: string, kindName: string, id: string, name: string, entry: string, timeoutMs: number): Promise<ReplyFrame | undefined> {
    return this.#request(node, [FRAME.view, kindName, id, name, entry], timeoutMs);
  }

  #kind(name: string): ActorKind<Protocol> {
    let kind = this.#kinds.get(name);
    if (kind === undefined) this.#kinds.set(name, (kind = { name }));
    return kind;
  }

  #here(shard: number): ShardRoute | undefined {
    const route = this.#leases.route(shard);
    if (route.kind === 'here' || (route.kind === 'draining' && performance.now() - route.since < DRAIN_GRACE_MS)) return route;
    return undefined;
  }

  #serve(msg: Msg): void {
    let frame: AskFrame | ViewFrame | PassivateFrame;
    try {
      frame = unpack(msg.data) as AskFrame | ViewFrame | PassivateFrame;
    } catch (err) {
      this.#respond(msg, [REPLY.err, toWire(new ApiError('internal-error', `undecodable cluster frame: ${(err as Error).message}`))]);
      return;
    }
    if (frame[0] === FRAME.passivate) {
      this.#system.passivateTenantHere(frame[1], frame[2], frame[3]).then(
        (left) => this.#respond(msg, [REPLY.ok, left]),
        (err: unknown) => this.#respond(msg, [REPLY.err, toWire(err)]),
      );
      return;
    }
    const key = `${frame[1]}:${frame[2]}`;
    const route = this.#here(shardOf(key, this.#shards));
    if (route === undefined || (route.kind !== 'here' && route.kind !== 'draining')) {
      this.#respond(msg, [REPLY.moved]);
      return;
    }
    if (frame[0] === FRAME.view) {
      const value = this.#system.cellOf(key)?.viewEntries(frame[3])?.get(frame[4]);
      this.#respond(msg, [REPLY.ok, { epoch: route.fence.epoch, value }]);
      return;
    }
    const [, kindName, id, type, payload, timeoutMs] = frame;
    const asked = this.#system.askHere(this.#kind(kindName), id, type, payload, timeoutMs, route.fence, route.kind === 'here');
    if (asked === undefined) {
      this.#respond(msg, [REPLY.moved]);
      return;
    }
    asked.then(
      (value) => this.#respond(msg, [REPLY.ok, value]),
      (err: unknown) => this.#respond(msg, err instanceof ShardMoved ? [REPLY.moved] : [REPLY.err, toWire(err)]),
    );
  }

  #respond(msg: Msg, reply: ReplyFrame): void {
    let data: Uint8Array;
    try {
      data = pack(reply);
    } catch (err) {
      log.error('cluster-reply-unencodable', { subject: msg.subject, err });
      data = pack([REPLY.err, toWire(new ApiError('internal-error'))]);
    }
    msg.respond(data);
  }
}
