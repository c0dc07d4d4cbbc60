/**
 * A registered OAuth client (`oauth-client:<clientId>`): registers it once and answers it.
 * Clients never change after registration; one the operator's command wrote straight to
 * storage is found by the next `get` that misses.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { Store } from '../../storage/store.js';
import type { ClientDoc } from './client-model.js';
import { OAUTH_COLLECTIONS } from './collections.js';

export type ClientProtocol = {
  /** Stores a new client (its id is fresh and random). */
  register: { in: { client: ClientDoc }; out: null };
  /** The client, or null when none has this id. */
  get: { in: null; out: ClientDoc | null };
};

/** `oauth-client:<clientId>` */
export const ClientKind = defineKind<ClientProtocol>('oauth-client');

export class ClientActor extends Actor<ClientProtocol> {
  #client: ClientDoc | null = null;

  override async onStart(): Promise<void> {
    this.#client = (await this.store.get<ClientDoc>(OAUTH_COLLECTIONS.clients, this.id)) ?? null;
  }

  readonly handlers: Handlers<ClientProtocol> = {
    register: ({ client }) => {
      if (client._id !== this.id) throw new Error(`client ${client._id} registered at ${this.id}`);
      this.insert(OAUTH_COLLECTIONS.clients, client);
      this.#client = client;
      return null;
    },
    get: async () => {
      this.#client ??= (await this.store.get<ClientDoc>(OAUTH_COLLECTIONS.clients, this.id)) ?? null;
      return this.#client;
    },
  };
}

/** Registers a client straight in storage (the operator's command, with no server running or beside one). */
export async function storeClient(store: Store, client: ClientDoc): Promise<void> {
  await store.commit([{ op: 'insert', collection: OAUTH_COLLECTIONS.clients, doc: client }]);
}
