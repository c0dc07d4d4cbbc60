/**
 * Storage families: commit latency and batch sizes per storage, and failed commits. Measured
 * around `Store.commit`, which every actor flush and `commitNow` goes through.
 */
import type { Fence, Store, WriteOp } from '../../storage/store.js';
import { CountFamily, SIZE_BUCKETS, LATENCY_BUCKETS, TimingFamily } from './families.js';
import { PREFIX, register } from './registry.js';

const commitSeconds = register(new TimingFamily(`${PREFIX}storage_commit_duration_seconds`, 'Time one storage commit (an actor batch made durable) takes, per storage.', LATENCY_BUCKETS, ['storage']));
const batchSize = register(new TimingFamily(`${PREFIX}storage_commit_batch_writes`, 'Writes in one storage commit, per storage.', SIZE_BUCKETS, ['storage']));
const failures = register(new CountFamily('counter', `${PREFIX}storage_commit_failures_total`, 'Storage commits that failed (their held replies were refused), per storage.', ['storage']));

/** Times every commit of `store` from now on (a wrapper around its `commit`). */
export function meterStore(store: Store): void {
  const seconds = commitSeconds.child(store.kind);
  const sizes = batchSize.child(store.kind);
  const failed = failures.child(store.kind);
  const commit = store.commit.bind(store);
  (store as { commit: Store['commit'] }).commit = (ops: readonly WriteOp[], fence?: Fence) => {
    const started = performance.now();
    sizes.observe(ops.length);
    return commit(ops, fence).then(
      () => seconds.observe((performance.now() - started) / 1000),
      (err: unknown) => {
        failed.n++;
        throw err;
      },
    );
  };
}
