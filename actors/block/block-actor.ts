import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import type { CollectionSpec } from '../../storage/store.js';
import { BLOCK_VIEWS, BLOCKS, type BlockDoc, type BlockProtocol } from './protocol.js';

/** Blocks, indexed by blocker. */
export const blockCollections: readonly CollectionSpec[] = [
  { name: BLOCKS, indexes: [{ name: 'by_blocker', fields: ['tenantId', 'blockerKey'] }] },
];

/** One reader's blocks. Blocking twice, or unblocking someone not blocked, changes nothing. */
export class BlockActor extends Actor<BlockProtocol> {
  #tenantId = '';
  #blockerKey = '';
  readonly #blocked = new Map<string, BlockDoc>();

  override async onStart(): Promise<void> {
    const colon = this.id.indexOf(':');
    this.#tenantId = this.id.slice(0, colon);
    this.#blockerKey = this.id.slice(colon + 1);
    for (const doc of await this.store.find<BlockDoc>(BLOCKS, { tenantId: this.#tenantId, blockerKey: this.#blockerKey })) {
      this.#blocked.set(doc.authorKey, doc);
    }
  }

  readonly handlers: Handlers<BlockProtocol> = {
    block: ({ authorKey }) => {
      if (this.#blocked.has(authorKey)) return null;
      const doc: BlockDoc = {
        _id: `${this.id}\n${authorKey}`,
        tenantId: this.#tenantId,
        blockerKey: this.#blockerKey,
        authorKey,
        createdAt: new Date(clock.now()).toISOString(),
      };
      this.put(BLOCKS, doc);
      this.#blocked.set(authorKey, doc);
      this.#publish();
      return null;
    },
    unblock: ({ authorKey }) => {
      const doc = this.#blocked.get(authorKey);
      if (doc === undefined) return null;
      this.remove(BLOCKS, doc._id);
      this.#blocked.delete(authorKey);
      this.#publish();
      return null;
    },
    list: () => this.#publish(),
  };

  /** The sorted list, published as the `list` view: a reader's every page read needs it, and peeking costs no message. */
  #publish(): string[] {
    const list = [...this.#blocked.keys()].sort();
    this.setView(BLOCK_VIEWS.list, list);
    return list;
  }
}
