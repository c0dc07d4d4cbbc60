/**
 * Server configuration: environment variables, each mirrored by a command-line flag
 * (`--port 9000` or `--port=9000`; a flag wins over its variable). Every setting is listed in
 * the README; `test/unit/engine/config.test.ts` keeps the two in step.
 */

type Parse<T> = (raw: string, name: string) => T;

interface Setting<T> {
  readonly env: string;
  readonly flag: string;
  readonly default: T;
  readonly parse: Parse<T>;
  readonly doc: string;
}

const int: Parse<number> = (raw, name) => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
};
const positive: Parse<number> = (raw, name) => {
  const n = int(raw, name);
  if (n === 0) throw new Error(`${name} must be at least 1, got "${raw}"`);
  return n;
};
const str: Parse<string> = (raw) => raw;
const bool: Parse<boolean> = (raw, name) => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
};
const optionalStr: Parse<string | undefined> = (raw) => (raw === '' ? undefined : raw);
const optionalInt: Parse<number | undefined> = (raw, name) => (raw === '' ? undefined : int(raw, name));

function setting<T>(env: string, flag: string, def: T, parse: Parse<T>, doc: string): Setting<T> {
  return { env, flag, default: def, parse, doc };
}

/** Every setting, in the order the README documents them. */
export const SETTINGS = {
  port: setting('PORT', '--port', 8080, int, 'TCP port to listen on; 0 picks a free port.'),
  host: setting('HOST', '--host', '0.0.0.0', str, 'Address to bind.'),
  dataDir: setting('DATA_DIR', '--data-dir', './data', str, 'Directory of the embedded LMDB database.'),
  mongodbUri: setting<string | undefined>('MONGODB_URI', '--mongodb-uri', undefined, optionalStr, 'Use MongoDB at this URI instead of LMDB.'),
  mongodbDb: setting<string | undefined>('MONGODB_DB', '--mongodb-db', undefined, optionalStr, 'MongoDB database name (default: the URI path, else `comments`).'),
  storageTimeoutMs: setting('STORAGE_TIMEOUT_MS', '--storage-timeout-ms', 3000, int, 'How long a storage call may take before it counts as unavailable.'),
  maxBodyBytes: setting('MAX_BODY_BYTES', '--max-body-bytes', 1_048_576, int, 'Largest accepted request body; larger ones get 413 `body-too-large`.'),
  askTimeoutMs: setting('ASK_TIMEOUT_MS', '--ask-timeout-ms', 10_000, int, 'How long a request waits for its actor before 503 `timeout`.'),
  maxActiveActors: setting('MAX_ACTIVE_ACTORS', '--max-active-actors', 50_000, int, 'Actors kept in memory before the least recently used idle ones are passivated.'),
  actorIdleMs: setting('ACTOR_IDLE_MS', '--actor-idle-ms', 300_000, int, 'An actor idle this long is passivated.'),
  mailboxLimit: setting('MAILBOX_LIMIT', '--mailbox-limit', 20_000, int, 'Messages queued for one actor before new ones get 503 `overloaded`.'),
  trustProxy: setting('TRUST_PROXY', '--trust-proxy', false, bool, 'Take the client address from the last X-Forwarded-For entry (or Forwarded: for=), and the scheme from X-Forwarded-Proto (or Forwarded: proto=): behind one reverse proxy only.'),
  publicReadRate: setting('PUBLIC_READ_RATE', '--public-read-rate', 20, int, 'Requests per second one client (address, or IPv6 /64) may make to public routes and /sub, sustained.'),
  publicReadBurst: setting('PUBLIC_READ_BURST', '--public-read-burst', 100, int, 'Requests one client may make to public routes at once, before PUBLIC_READ_RATE applies.'),
  publicWriteRate: setting('PUBLIC_WRITE_RATE', '--public-write-rate', 2, int, 'Likes and reactions per second one client may add or remove, sustained.'),
  publicWriteBurst: setting('PUBLIC_WRITE_BURST', '--public-write-burst', 30, int, 'Likes and reactions one client may add or remove at once.'),
  anonSessionsPerHour: setting('ANON_SESSIONS_PER_HOUR', '--anon-sessions-per-hour', 120, int, 'New anonymous session cookies one client may be issued per hour (a quarter of it at once).'),
  anonPagesPerHour: setting('ANON_PAGES_PER_HOUR', '--anon-pages-per-hour', 1000, int, 'Pages public routes (likes, reactions) may create per tenant per hour; the API is not limited.'),
  shutdownGraceMs: setting('SHUTDOWN_GRACE_MS', '--shutdown-grace-ms', 15_000, int, 'On SIGTERM, how long to wait for mailboxes to drain before closing storage.'),
  demoTenant: setting('DEMO_TENANT', '--demo-tenant', true, bool, 'Create a demo tenant and API key on first start with an empty database.'),
  allowUwsFallback: setting('ALLOW_UWS_FALLBACK', '--allow-uws-fallback', false, bool, 'Start even if uWebSockets.js fell back to its slow pure-JS implementation.'),
  aggregationMemoryMb: setting('AGGREGATION_MEMORY_MB', '--aggregation-memory-mb', 64, positive, 'Heap one aggregation may use, in MB; past it the call is stopped with 422 `aggregation-memory-limit`.'),
  aggregationQueueTimeoutMs: setting('AGGREGATION_QUEUE_TIMEOUT_MS', '--aggregation-queue-timeout-ms', 60_000, int, "How long an aggregation may wait behind the tenant's others before 503 `aggregation-queue-timeout`."),
  aggregationRunTimeoutMs: setting('AGGREGATION_RUN_TIMEOUT_MS', '--aggregation-run-timeout-ms', 300_000, positive, 'How long one aggregation may run before it is stopped with 504 `aggregation-run-timeout`.'),
  aggregationThreads: setting('AGGREGATION_THREADS', '--aggregation-threads', 2, positive, 'Worker threads for aggregations: how many tenants can aggregate at once (one call per tenant at a time).'),
  publicUrl: setting<string | undefined>('PUBLIC_URL', '--public-url', undefined, optionalStr, 'Base URL of the server as email readers and OAuth clients reach it: links in emails start with it (default `http://localhost:<port>`), and it is the OAuth issuer (default: from the request).'),
  smtpUrl: setting<string | undefined>('SMTP_URL', '--smtp-url', undefined, optionalStr, 'Send email through this SMTP server (`smtp://user:pass@host:587`, `smtps://` for TLS); unset: write `.eml` files under `DATA_DIR/outbox-mail/`.'),
  mailFrom: setting('MAIL_FROM', '--mail-from', 'Comments <noreply@localhost>', str, 'Sender of emails, unless the domain configuration names one.'),
  emailRetryMs: setting('EMAIL_RETRY_MS', '--email-retry-ms', 60_000, int, 'Delay before the first retry of a failed email; doubles per attempt, at most an hour.'),
  emailMaxAttempts: setting('EMAIL_MAX_ATTEMPTS', '--email-max-attempts', 10, int, 'Attempts before an email that keeps failing temporarily is given up.'),
  emailTenantConcurrency: setting('EMAIL_TENANT_CONCURRENCY', '--email-tenant-concurrency', 4, int, 'Emails of one tenant being sent at once.'),
  emailTenantQueueLimit: setting('EMAIL_TENANT_QUEUE_LIMIT', '--email-tenant-queue-limit', 10_000, int, 'Emails of one tenant waiting to be sent before more are refused.'),
  templateWorkers: setting('TEMPLATE_WORKERS', '--template-workers', 2, int, 'Worker threads rendering email templates.'),
  templateMemoryMb: setting('TEMPLATE_MEMORY_MB', '--template-memory-mb', 64, int, 'Heap limit of each template worker, MB.'),
  notificationBatchMs: setting('NOTIFICATION_BATCH_MS', '--notification-batch-ms', 3_600_000, positive, 'The batch window of notification emails: replies to a user are emailed at most once per window, as are hourly subscription digests (daily ones wait 24 windows).'),
  notificationFanoutBatch: setting('NOTIFICATION_FANOUT_BATCH', '--notification-fanout-batch', 500, positive, "Subscribers a new comment's fan-out notifies per step (one durable step at a time, resumed after a crash)."),
  webhookAllowPrivate: setting('WEBHOOK_ALLOW_PRIVATE', '--webhook-allow-private', false, bool, 'Let webhooks go to loopback, private and link-local addresses (tests, closed networks).'),
  webhookRetryMs: setting('WEBHOOK_RETRY_MS', '--webhook-retry-ms', 60_000, int, 'After the n-th failed attempt, a webhook delivery is retried after n times this.'),
  webhookMaxAttempts: setting('WEBHOOK_MAX_ATTEMPTS', '--webhook-max-attempts', 99, positive, 'Attempts before a webhook delivery is given up (it stays listed as pending).'),
  webhookTenantConcurrency: setting('WEBHOOK_TENANT_CONCURRENCY', '--webhook-tenant-concurrency', 8, positive, 'Webhook deliveries of one tenant in flight at once (half of them, rounded up, to one receiver).'),
  webhookTimeoutMs: setting('WEBHOOK_TIMEOUT_MS', '--webhook-timeout-ms', 10_000, positive, 'How long a webhook receiver may take to answer before the attempt fails.'),
  oauthRegistrationsPerHour: setting('OAUTH_REGISTRATIONS_PER_HOUR', '--oauth-registrations-per-hour', 20, int, 'OAuth clients one address (IPv6 /64) may register per hour, a quarter of them at once; more get 429.'),
  oauthAllowPrivateMetadata: setting('OAUTH_ALLOW_PRIVATE_METADATA', '--oauth-allow-private-metadata', false, bool, 'Let client metadata documents (an https URL as client_id) be fetched from loopback, private and link-local addresses (tests, closed networks).'),
  logLevel: setting('LOG_LEVEL', '--log-level', 'info', str, 'One of debug, info, warn, error.'),
  natsUrl: setting<string | undefined>('NATS_URL', '--nats-url', undefined, optionalStr, 'Cluster mode: the NATS server(s) the nodes meet on (needs MONGODB_URI).'),
  clusterName: setting('CLUSTER_NAME', '--cluster-name', 'comments', str, 'Cluster mode: prefix of the NATS subjects and key-value buckets of this cluster.'),
  nodeId: setting<string | undefined>('NODE_ID', '--node-id', undefined, optionalStr, 'Cluster mode: this node\'s id (default: host name, process id and a random suffix).'),
  clusterShards: setting('CLUSTER_SHARDS', '--cluster-shards', 256, int, 'Cluster mode: shards actor keys hash to; every node of a cluster must agree.'),
  clusterLeaseMs: setting('CLUSTER_LEASE_MS', '--cluster-lease-ms', 10_000, int, 'Cluster mode: how long a shard lease lasts unless renewed (renewed every third of it).'),
  backupDir: setting<string | undefined>('BACKUP_DIR', '--backup-dir', undefined, optionalStr, 'Scheduled backups of the LMDB database into this directory (one `backup-<time>` directory each); unset: none.'),
  backupKeep: setting('BACKUP_KEEP', '--backup-keep', 10, positive, 'Scheduled backups kept; older ones are removed.'),
  backupIntervalMs: setting('BACKUP_INTERVAL_MS', '--backup-interval-ms', 86_400_000, positive, 'Time between scheduled backups (the first one an interval after start).'),
  metricsPort: setting<number | undefined>('METRICS_PORT', '--metrics-port', undefined, optionalInt, 'Serve Prometheus metrics (`/metrics`, also `/readyz`, `/healthz`) on this port, a listener of its own; unset: no metrics. Never on the public port.'),
  metricsHost: setting('METRICS_HOST', '--metrics-host', '127.0.0.1', str, 'Address the metrics listener binds (loopback unless set).'),
  metricsTenants: setting<string | undefined>('METRICS_TENANTS', '--metrics-tenants', undefined, optionalStr, 'Comma-separated tenant ids whose API requests get series of their own (at most 50); no other metric has a tenant label.'),
  publicCommentsPerMinute: setting('PUBLIC_COMMENTS_PER_MINUTE', '--public-comments-per-minute', 6, int, 'Comments one client may post (or edit) through the widget API per minute, sustained.'),
  publicCommentBurst: setting('PUBLIC_COMMENT_BURST', '--public-comment-burst', 5, int, 'Comments one client may post (or edit) through the widget API at once.'),
  openSitesWithoutDomains: setting('OPEN_SITES_WITHOUT_DOMAINS', '--open-sites-without-domains', false, bool, 'Let any site host the widget of a tenant with no domain configured (otherwise only localhost and loopback origins).'),
  maxUploadBytes: setting('MAX_UPLOAD_BYTES', '--max-upload-bytes', 10_485_760, int, 'Largest image file `POST /upload-image` accepts (the whole request body); larger ones get 413 `body-too-large`.'),
  maxUploadPixels: setting('MAX_UPLOAD_PIXELS', '--max-upload-pixels', 40_000_000, int, 'Most pixels (width × height) an uploaded image may have; more get 422 `image-too-many-pixels` before it is decoded.'),
  uploadsPerHour: setting('UPLOADS_PER_HOUR', '--uploads-per-hour', 60, int, 'Images one client may upload per hour (a quarter of them at once).'),
  liveVoteCoalesce: setting('LIVE_VOTE_COALESCE', '--live-vote-coalesce', 20_000, int, 'Vote events per second × live subscribers of a page from which its vote frames are folded into `cvc` frames (`changes`: net vote change per comment); 0: never.'),
  maxActorMemoryMb: setting('MAX_ACTOR_MEMORY_MB', '--max-actor-memory-mb', 1024, int, 'Heap the active actors may hold together, by their estimates (a page: about 5 KB per comment); beyond it the least recently used idle ones are passivated. 0: no bound.'),
  liveVoteWindowMs: setting('LIVE_VOTE_WINDOW_MS', '--live-vote-window-ms', 100, int, 'How long one `cvc` frame of a hot page sums votes, in milliseconds.'),
} as const;

type Settings = typeof SETTINGS;

/** The resolved configuration. */
export type Config = { -readonly [K in keyof Settings]: Settings[K]['default'] };

function flagValues(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    if (eq > 0) out.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) out.set(arg, argv[++i]!);
    else out.set(arg, 'true');
  }
  return out;
}

/** Reads every setting from flags, then the environment, then the default. Throws on bad values. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv.slice(2)): Config {
  const flags = flagValues(argv);
  const known = new Set(Object.values(SETTINGS).map((s) => s.flag));
  for (const flag of flags.keys()) {
    if (!known.has(flag)) throw new Error(`unknown flag ${flag}`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = flags.get(s.flag) ?? env[s.env];
    out[key] = raw === undefined ? s.default : s.parse(raw, s.env);
  }
  return out as Config;
}
