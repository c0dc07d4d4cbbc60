/**
 * One writer per MongoDB database: a single server, or the nodes of one cluster. Two servers
 * on one database would each hold actors over the same documents and overwrite each other (a
 * run of three showed deleted votes coming back and counts going wrong), and a server would
 * replay another's journal under its feet.
 *
 * The claim is one document, `_writer/writer`, that its holder renews (a counter, `beat`) every
 * `renewMs`. A starting server takes it when it is free, released, or stale: unchanged for
 * `staleMs`, or left by a process that no longer exists on this very machine (so a restart
 * after a crash is not kept waiting). Otherwise it refuses to start. Every change is a
 * compare-and-set on the holder's random token, so two starters never both win. Nodes of one
 * cluster share the claim: any of them renews it, and a single server refuses while they do.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Collection, Db } from 'mongodb';
import { WriterHeldError } from './errors.js';
import type { WriterClaim, WriterLease } from './store.js';

export const WRITER_COLLECTION = '_writer';
const WRITER_ID = 'writer';

/** Timings of the claim, shortened by tests. */
export interface WriterLeaseTimings {
  readonly renewMs: number;
  readonly staleMs: number;
}

export const DEFAULT_WRITER_TIMINGS: WriterLeaseTimings = { renewMs: 2000, staleMs: 10_000 };

interface WriterDoc {
  _id: string;
  token: string;
  mode: 'single' | 'cluster';
  clusterId: string | null;
  machine: string;
  pid: number;
  beat: number;
  released: boolean;
  since: Date;
}

/** This machine, as long as it runs: host name and kernel boot id. */
function machineId(): string {
  let boot = '';
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Not Linux: the host name alone, and no shortcut for dead local processes below.
  }
  return `${hostname()}/${boot}`;
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function describe(doc: WriterDoc): string {
  return doc.mode === 'cluster'
    ? `the nodes of cluster ${doc.clusterId}`
    : `a server (process ${doc.pid} on ${doc.machine.split('/')[0]}, since ${doc.since.toISOString()})`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Claims the database for `claim`, or throws WriterHeldError. */
export async function claimMongoWriter(
  db: Db,
  dbName: string,
  claim: WriterClaim,
  onLost: () => void,
  timings: WriterLeaseTimings = DEFAULT_WRITER_TIMINGS,
): Promise<WriterLease> {
  const writers: Collection<WriterDoc> = db.collection<WriterDoc>(WRITER_COLLECTION);
  const clusterId = claim.mode === 'cluster' ? claim.clusterId : null;
  const mine: WriterDoc = {
    _id: WRITER_ID,
    token: randomBytes(12).toString('hex'),
    mode: claim.mode,
    clusterId,
    machine: machineId(),
    pid: process.pid,
    beat: 0,
    released: false,
    since: new Date(),
  };
  const shares = (doc: WriterDoc) => claim.mode === 'cluster' && doc.mode === 'cluster' && doc.clusterId === clusterId;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 20) throw new Error('could not settle the MongoDB writer claim: it keeps changing hands');
    const current = await writers.findOne({ _id: WRITER_ID });
    if (current === null) {
      try {
        await writers.insertOne(mine);
        break;
      } catch {
        continue;
      }
    }
    if (current.released || shares(current) || (current.machine === mine.machine && processGone(current.pid))) {
      if (shares(current)) break;
      if ((await writers.replaceOne({ _id: WRITER_ID, token: current.token }, mine)).matchedCount === 1) break;
      continue;
    }
    // Held by someone who may be alive: alive means renewing.
    const deadline = Date.now() + timings.staleMs;
    let renewed = false;
    while (Date.now() < deadline) {
      await sleep(Math.min(500, timings.renewMs / 2));
      const now = await writers.findOne({ _id: WRITER_ID });
      if (now === null || now.token !== current.token || now.beat !== current.beat || now.released) {
        renewed = now !== null && now.token === current.token && !now.released;
        break;
      }
    }
    if (renewed) {
      throw new WriterHeldError(
        `MongoDB database ${dbName} is in use by ${describe(current)}. Two servers on one database overwrite each other's data: stop the other one, use another database (MONGODB_DB), or run both as one cluster (NATS_URL).`,
      );
    }
    if ((await writers.replaceOne({ _id: WRITER_ID, token: current.token, beat: current.beat }, mine)).matchedCount === 1) break;
  }

  let stopped = false;
  const beat = async (): Promise<void> => {
    const filter = claim.mode === 'cluster' ? { _id: WRITER_ID, mode: 'cluster' as const, clusterId } : { _id: WRITER_ID, token: mine.token };
    const result = await writers.updateOne(filter, { $inc: { beat: 1 } });
    if (result.matchedCount === 0 && !stopped) {
      stopped = true;
      clearInterval(timer);
      onLost();
    }
  };
  const timer = setInterval(() => {
    // An unreachable database is not a lost claim: the renewal simply waits for it.
    beat().catch(() => undefined);
  }, timings.renewMs);
  timer.unref();
  return {
    async release() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      // A cluster's claim outlives any one node; it goes stale once the last node is gone.
      if (claim.mode === 'single') await writers.updateOne({ _id: WRITER_ID, token: mine.token }, { $set: { released: true } }).catch(() => undefined);
    },
  };
}
