import { registerActors } from '../actors/index.js';
import { aggregatorFor } from '../aggregate/setup.js';
import { startIdentityWork } from '../actors/jobs/background.js';
import { LiveIds } from '../actors/live/live-ids.js';
import { liveSecret } from '../actors/live/live-secret.js';
import { startOAuthSweeps } from '../actors/oauth/sweeper.js';
import { TokenStore } from '../actors/oauth/token-store.js';
import { createTenant, noTenants, type ProvisionedTenant } from '../actors/tenant/provision.js';
import { NotOnThisPage } from '../actors/page/protocol.js';
import { ActorSystem } from '../engine/actor-system.js';
import { type ClusterNode, joinCluster } from '../engine/cluster/cluster-node.js';
import { registerWireError } from '../engine/cluster/frames.js';
import type { Config } from '../engine/config.js';
import { EventBus } from '../engine/event-bus.js';
import { log } from '../engine/log.js';
import { createEmail } from '../email/index.js';
import { createNotify } from '../actors/notify/index.js';
import { createWebhooks } from '../webhooks/index.js';
import { createBadges } from '../actors/badge/index.js';
import { COLLECTIONS } from '../storage/collections.js';
import { createStore } from '../storage/create-store.js';
import { startBackups } from '../storage/backup-schedule.js';
import { resumeDataJobs } from '../actors/import/resume-data-jobs.js';
import type { MongoStore } from '../storage/mongo-store.js';
import type { Store, WriterLease } from '../storage/store.js';
import { startLive } from './live/live-channels.js';
import { Presence } from './live/presence.js';
import { UPLOAD_PATH_PREFIX } from './routes/upload-image.js';
import { ChargeBatcher } from './charge-batcher.js';
import { AuditBatcher } from './audit-batcher.js';
import { createPipeline } from './pipeline.js';
import { publicLimits } from './rate-limit.js';
import { publicReadLane } from './public/fast-read.js';
import { ROUTES } from './routes/index.js';
import type { AppServices } from './services.js';
import { assertNativeUws, HttpServer } from './uws/index.js';
import { meterAggregations } from '../aggregate/metrics.js';
import { watchActors } from '../engine/metrics/actor-meters.js';
import { watchCluster } from '../engine/metrics/cluster-meters.js';
import { watchTenants } from '../engine/metrics/http-meters.js';
import { enableMetrics } from '../engine/metrics/registry.js';
import { meterStore } from '../engine/metrics/storage-meters.js';
import { type MetricsListener, startMetricsListener } from './metrics-listener.js';
import { Readiness } from './readiness.js';

export interface RunningServer {
  readonly port: number;
  /** The metrics listener's port, when `METRICS_PORT` is set. */
  readonly metricsPort: number | undefined;
  /** Cluster mode: this node's id. */
  readonly nodeId: string | undefined;
  readonly services: AppServices;
  /** The tenant created on first start with an empty database, if any. */
  readonly demo: ProvisionedTenant | undefined;
  /** Settles once the jobs a crash interrupted (resumed at start) have ended. */
  readonly resumed: Promise<void>;
  /** Stops accepting, drains every mailbox, flushes and closes storage. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Use this (already constructed, not yet opened) store instead of the configured one. */
  store?: Store;
  /**
   * Called if this server's claim on its storage is taken away while it runs (it was stalled
   * past the claim and another server took over): default, log and exit, since it must not
   * write again.
   */
  onWriterLost?: () => void;
}

function exitOnWriterLost(): void {
  log.error('writer-claim-lost', { reason: 'another server took over this storage while this one was stalled; stopping' });
  process.exit(70);
}

registerWireError('NotOnThisPage', (message) => new NotOnThisPage(message));

/** Opens storage, retrying while a database server is not up yet; LMDB errors are final. */
async function openStore(store: Store): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await store.open();
      return;
    } catch (err) {
      if (store.kind !== 'mongodb' || attempt >= 30) throw err;
      log.warn('storage-open-retry', { attempt, err });
      await new Promise((r) => setTimeout(r, Math.min(5000, 200 * attempt)));
    }
  }
}

/** Starts the whole server: storage, actors, HTTP. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  assertNativeUws(config.allowUwsFallback);
  const clustered = config.natsUrl !== undefined;
  if (clustered && config.mongodbUri === undefined && options.store?.kind !== 'mongodb') {
    throw new Error('Cluster mode (NATS_URL is set) needs MongoDB: set MONGODB_URI. LMDB is the storage of one process.');
  }
  const store =
    options.store ??
    createStore(
      // The journal is replayed once this server is the storage's writer, not before.
      { dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs, replayJournal: false },
      COLLECTIONS,
    );
  await openStore(store);
  const metered = config.metricsPort !== undefined;
  if (metered) {
    enableMetrics();
    meterStore(store);
    watchTenants((config.metricsTenants ?? '').split(',').map((id) => id.trim()).filter((id) => id !== ''));
  }

  const bus = new EventBus();
  const system = new ActorSystem({
    store,
    bus,
    maxActive: config.maxActiveActors,
    maxMemoryBytes: config.maxActorMemoryMb * 1024 * 1024,
    idleMs: config.actorIdleMs,
    askTimeoutMs: config.askTimeoutMs,
    mailboxLimit: config.mailboxLimit,
  });
  registerActors(system);
  const email = createEmail(system, config);
  const notify = createNotify(system, config);
  const webhooks = createWebhooks(system, bus, config);
  const badges = createBadges(system, bus);
  let cluster: ClusterNode | undefined;
  let writer: WriterLease | undefined;
  try {
    if (clustered) {
      cluster = await joinCluster(
        {
          natsUrl: config.natsUrl!,
          clusterName: config.clusterName,
          nodeId: config.nodeId,
          shards: config.clusterShards,
          leaseMs: config.clusterLeaseMs,
          onLost: options.onWriterLost ?? exitOnWriterLost,
        },
        store as MongoStore,
        system,
        bus,
      );
    } else writer = await store.claimWriter?.({ mode: 'single' }, options.onWriterLost ?? exitOnWriterLost);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  const demo = config.demoTenant && (cluster === undefined || (await cluster.once('demo-tenant'))) && (await noTenants(store)) ? await createTenant(store, { name: 'Demo' }) : undefined;
  const secret = await liveSecret(store);
  const liveIds = new LiveIds(secret);
  const charges = new ChargeBatcher(system);
  const aggregator = aggregatorFor(config, store.kind);
  const audits = new AuditBatcher(system);
  const readiness = new Readiness(store, cluster?.status);
  const presence = new Presence(bus, clustered);
  const services: AppServices = {
    config, store, system, bus, tokens: new TokenStore(store), liveIds, charges, limits: publicLimits(config), aggregator, email, audits, readiness, presence,
    ...(cluster ? { clusterReady: () => cluster!.ready } : {}),
  };
  const http = new HttpServer({ maxBodyBytes: config.maxBodyBytes, trustProxy: config.trustProxy, largeBodies: [{ prefix: UPLOAD_PATH_PREFIX, maxBytes: Math.max(config.maxBodyBytes, config.maxUploadBytes) }] });
  const live = startLive(http, services, cluster?.relay);
  cluster?.relay.start((topic) => http.subscribers(topic));
  const pipeline = createPipeline(ROUTES, services);
  // The anonymous page view, answered from kept bytes before the pipeline (docs/public-api.md).
  http.fastGet('/comments/:tenantId', publicReadLane(services), pipeline.handle);
  http.onRequest(pipeline.handle);
  // A node takes connections once every shard has an owner and its own shards are leased, so
  // that its first requests do not wait for a lease (or time out waiting).
  if (cluster !== undefined && !(await cluster.whenReady(Math.max(10_000, 3 * config.clusterLeaseMs)))) {
    log.warn('cluster-not-ready', { nodeId: cluster.nodeId, detail: '/healthz answers 503 cluster-starting until every shard has a live owner' });
  }
  const unwatch: (() => void)[] = [];
  let metrics: MetricsListener | undefined;
  if (metered) {
    unwatch.push(watchActors(() => system.census()), meterAggregations(aggregator));
    if (cluster !== undefined) unwatch.push(watchCluster(cluster.status));
    // Before the public port: a metrics port already taken stops the start before any traffic.
    metrics = await startMetricsListener(config.metricsHost, config.metricsPort!, readiness);
  }
  const port = await http.listen(config.host, config.port);
  email.start(port, secret);
  notify.start();
  webhooks.start();
  badges.start();
  const { resumed } = await startIdentityWork(system, store);
  startOAuthSweeps(system);
  void resumeDataJobs(system, store).catch((err: unknown) => log.warn('data-jobs-resume-failed', { err }));
  const backups = startBackups({ dataDir: config.dataDir, dir: config.backupDir, keep: config.backupKeep, intervalMs: config.backupIntervalMs, storageKind: store.kind });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Not ready from now on: probes on open connections and on the metrics listener say so.
      readiness.drain();
      http.stopListening();
      // Requests under way finish, and their charges reach the ledger, before it closes.
      if (!(await pipeline.settle(config.shutdownGraceMs))) log.warn('shutdown-requests-timeout', { graceMs: config.shutdownGraceMs });
      await aggregator.close();
      await backups.stop();
      if (!(await charges.settled(config.shutdownGraceMs))) log.warn('shutdown-charges-timeout', { graceMs: config.shutdownGraceMs });
      charges.close();
      await audits.flush();
      // A node hands its shards over first, its actors' writes durable, while NATS still answers.
      await cluster?.leave();
      // Sends under way are not waited for: unconfirmed, they are sent again after the next start.
      await email.close();
      notify.close();
      webhooks.close();
      badges.close();
      const drained = await system.shutdown(config.shutdownGraceMs);
      if (!drained) log.warn('shutdown-drain-timeout', { graceMs: config.shutdownGraceMs });
      await live.stop();
      http.close();
      await cluster?.close();
      await writer?.release();
      await store.close();
      metrics?.close();
      for (const remove of unwatch) remove();
    })());
  return { port, metricsPort: metrics?.port, nodeId: cluster?.nodeId, services, demo, stop, resumed };
}
