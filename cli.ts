/**
 * Operator commands, against the same storage the server uses (DATA_DIR or MONGODB_URI).
 * Each prints one JSON object on stdout.
 *
 *   tenant create --name N [--email E] [--monthly-credits N [--flex]] [--white-label N] [--auditing] [--max-tenant-users N]
 *   api-key create --tenant T
 *   oauth-client create --name N --redirect-uris U[,U...] [--client-uri U] [--logo-uri U] [--public]
 *   import, export, backup, restore: see cli-data.ts
 *   badge create|list|disable|enable|delete (see cli-badges.ts)
 */
import { createApiKey, createTenant, type NewTenant } from './actors/tenant/provision.js';
import { storeClient } from './actors/oauth/client-actor.js';
import { clientMetadata, newClient } from './actors/oauth/client-model.js';
import { loadConfig } from './engine/config.js';
import { COLLECTIONS } from './storage/collections.js';
import { createStore } from './storage/create-store.js';
import { DATA_COMMANDS, runDataCommand } from './cli-data.js';
import { BADGE_USAGE, badgeCommand } from './cli-badges.js';

const USAGE = `usage:
  cli tenant create --name N [--email E] [--monthly-credits N [--flex]] [--white-label N] [--auditing] [--max-tenant-users N]
  cli api-key create --tenant T
  cli oauth-client create --name N --redirect-uris U[,U...] [--client-uri U] [--logo-uri U] [--public]
  cli import --tenant T --format disqus|wordpress|commento|isso|remark42|native FILE [--dry-run] [--match path|identifier] [--problems-file F]
  cli export --tenant T [--out FILE]
  cli backup DIR
  cli restore DIR
${BADGE_USAGE}
Storage comes from DATA_DIR (default ./data) or MONGODB_URI, as for the server.`;

function options(args: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    if (eq > 0) out.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (i + 1 < args.length && !args[i + 1]!.startsWith('--')) out.set(arg.slice(2), args[++i]!);
    else out.set(arg.slice(2), 'true');
  }
  return out;
}

function required(opts: Map<string, string>, name: string): string {
  const value = opts.get(name);
  if (value === undefined || value === 'true') throw new Error(`--${name} is required`);
  return value;
}

function count(raw: string, name: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun === undefined || noun === 'help' || noun === '--help') {
    process.stdout.write(USAGE + '\n');
    return noun === undefined ? 2 : 0;
  }
  const config = loadConfig(process.env, []);
  if (DATA_COMMANDS.has(noun)) {
    const out = await runDataCommand(config, noun, argv.slice(1));
    if (out !== null) process.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  }
  const opts = options(rest);
  const store = createStore(
    // A server may be running on this storage: only it replays MongoDB's journal.
    { dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs, replayJournal: false },
    COLLECTIONS,
  );
  await store.open();
  try {
    let out: Record<string, unknown>;
    if (noun === 'tenant' && verb === 'create') {
      const spec: NewTenant = { name: required(opts, 'name') };
      const email = opts.get('email');
      if (email !== undefined) spec.email = email;
      const credits = opts.get('monthly-credits');
      if (credits !== undefined) {
        const n = Number(credits);
        if (!Number.isInteger(n) || n < 0) throw new Error('--monthly-credits must be a non-negative integer');
        spec.monthlyCredits = n;
        spec.flex = opts.get('flex') === 'true';
      } else if (opts.has('flex')) {
        throw new Error('--flex needs --monthly-credits');
      }
      const whiteLabel = opts.get('white-label');
      if (whiteLabel !== undefined) spec.whiteLabeledTenants = count(whiteLabel, 'white-label');
      const maxUsers = opts.get('max-tenant-users');
      if (maxUsers !== undefined) spec.maxTenantUsers = count(maxUsers, 'max-tenant-users');
      if (opts.get('auditing') === 'true') spec.auditing = true;
      out = { ...(await createTenant(store, spec)) };
    } else if (noun === 'api-key' && verb === 'create') {
      const tenantId = required(opts, 'tenant');
      out = { tenantId, apiKey: await createApiKey(store, tenantId) };
    } else if (noun === 'oauth-client' && verb === 'create') {
      // A partner client: its refresh tokens are extended at each use instead of rotated (docs/oauth.md).
      const metadata = clientMetadata({
        client_name: required(opts, 'name'),
        redirect_uris: required(opts, 'redirect-uris').split(',').map((u) => u.trim()),
        client_uri: opts.get('client-uri'),
        logo_uri: opts.get('logo-uri'),
        token_endpoint_auth_method: opts.get('public') === 'true' ? 'none' : 'client_secret_basic',
      });
      const { client, secret } = newClient(metadata, true, Date.now());
      await storeClient(store, client);
      out = { clientId: client._id, ...(secret === null ? {} : { clientSecret: secret }), partner: true, redirectUris: client.redirectUris, tokenEndpointAuthMethod: client.tokenEndpointAuthMethod };
    } else if (noun === 'badge' && verb !== undefined) {
      out = await badgeCommand(store, verb, opts);
    } else {
      throw new Error(`unknown command: ${[noun, verb].filter(Boolean).join(' ')}\n${USAGE}`);
    }
    process.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
