/**
 * Where actor keys live in a cluster: each key hashes to one of a fixed number of shards, and
 * each shard's place among the live nodes is decided by rendezvous hashing, so every node
 * computes the same placement and a node joining or leaving moves only its share of shards.
 */

/** FNV-1a over the UTF-16 code units of `text`: fast, stable across processes and versions. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The shard of an actor key (`<kind>:<id>`). */
export function shardOf(key: string, shards: number): number {
  return hash32(key) % shards;
}

/** The node a shard belongs on among `nodes` (rendezvous: highest score wins), if any. */
export function placement(shard: number, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const node of nodes) {
    // Mixed once more so that nearby shard numbers do not favour one node.
    let score = hash32(`${node}#${shard}`);
    score = Math.imul(score ^ (score >>> 16), 0x45d9f3b) >>> 0;
    if (score > bestScore || (score === bestScore && best !== undefined && node < best)) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}
