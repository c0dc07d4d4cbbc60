/**
 * A node's connection to NATS: connects (retrying at start-up), reconnects forever, and keeps
 * `connected` current so that requests fail fast with `cluster-unavailable` while NATS is away
 * instead of waiting for their timeout.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { log } from '../log.js';

/** Hears `down` (disconnected), `up` (reconnected) and `lossy` (NATS dropped messages to this node). */
export type LinkListener = (event: 'down' | 'up' | 'lossy') => void;

export class NatsLink {
  readonly nc: NatsConnection;
  #connected = true;
  readonly #listeners = new Set<LinkListener>();

  private constructor(nc: NatsConnection) {
    this.nc = nc;
    void this.#watch();
  }

  /** Connects to `servers` (comma-separated URLs), retrying for up to `waitMs` at start-up. */
  static async open(servers: string, name: string, waitMs = 30_000): Promise<NatsLink> {
    const deadline = Date.now() + waitMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const nc = await connect({
          servers: servers.split(',').map((s) => s.trim()).filter((s) => s !== ''),
          name,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 250,
          reconnectJitter: 100,
          pingInterval: 5000,
          maxPingOut: 2,
          timeout: 2000,
        });
        return new NatsLink(nc);
      } catch (err) {
        if (Date.now() >= deadline) throw new Error(`cannot reach NATS at ${servers}: ${(err as Error).message}`);
        log.warn('nats-connect-retry', { attempt, err });
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * attempt)));
      }
    }
  }

  /** False from a disconnection until the reconnection. */
  get connected(): boolean {
    return this.#connected && !this.nc.isClosed();
  }

  /** Hears every change of `connected`. */
  listen(listener: LinkListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.drain().catch(() => this.nc.close());
  }

  async #watch(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') {
        const connected = status.type === 'reconnect';
        if (connected === this.#connected) continue;
        this.#connected = connected;
        log.warn(connected ? 'nats-reconnected' : 'nats-disconnected', {});
        this.#tell(connected ? 'up' : 'down');
      } else if (status.type === 'slowConsumer') {
        log.warn('nats-slow-consumer', { subject: status.sub.getSubject(), pending: status.pending });
        this.#tell('lossy');
      }
    }
  }

  #tell(event: 'down' | 'up' | 'lossy'): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (err) {
        log.error('nats-listener-failed', { err });
      }
    }
  }
}
