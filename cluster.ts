/**
 * `npm run cluster -- --nodes N [server flags]`: starts N server processes of one cluster on one
 * port, for an operator on one machine (the kernel spreads connections over them: uWebSockets.js
 * listens with SO_REUSEPORT). NATS_URL and MONGODB_URI come from the environment or the flags,
 * as for one server; every other flag is passed on to each node. Each node gets its own id
 * (`<host>-<n>`); SIGTERM or SIGINT stops them all gracefully, and a node that dies is started
 * again after a second. With METRICS_PORT (--metrics-port) P, node n serves its metrics on
 * P + n - 1: a shared port would hand each scrape to any node.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './engine/config.js';

const args = process.argv.slice(2);
let nodes = 2;
const passed: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === '--nodes' || arg.startsWith('--nodes=')) {
    const raw = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
    nodes = Number(raw);
    if (!Number.isInteger(nodes) || nodes < 1 || nodes > 64) {
      process.stderr.write(`--nodes needs a whole number from 1 to 64, got ${raw}\n`);
      process.exit(2);
    }
  } else passed.push(arg);
}
let config;
try {
  config = loadConfig(process.env, passed);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
if (!config.natsUrl || !config.mongodbUri) {
  process.stderr.write('A cluster needs NATS_URL (--nats-url) and MONGODB_URI (--mongodb-uri).\n');
  process.exit(2);
}
if (config.port === 0) {
  process.stderr.write('The nodes of a cluster share one port: give PORT (--port), not 0.\n');
  process.exit(2);
}

/** The node flags without `--metrics-port`, which each node gets as its own METRICS_PORT. */
const nodeFlags: string[] = [];
for (let i = 0; i < passed.length; i++) {
  if (passed[i] === '--metrics-port') i++;
  else if (!passed[i]!.startsWith('--metrics-port=')) nodeFlags.push(passed[i]!);
}
const metricsBase = config.metricsPort;

const main = fileURLToPath(new URL('./main.js', import.meta.url));
const children = new Map<number, ChildProcess>();
let stopping = false;

function start(n: number): void {
  const nodeId = `${hostname().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40)}-${n}`;
  // Only the first node may create the demo tenant on an empty database.
  const env = {
    ...process.env,
    NODE_ID: config!.nodeId ? `${config!.nodeId}-${n}` : nodeId,
    ...(n > 1 ? { DEMO_TENANT: 'false' } : {}),
    ...(metricsBase === undefined ? {} : { METRICS_PORT: String(metricsBase === 0 ? 0 : metricsBase + n - 1) }),
  };
  const child = spawn(process.execPath, [main, ...nodeFlags], { env, stdio: 'inherit' });
  children.set(n, child);
  child.once('exit', (code, signal) => {
    children.delete(n);
    if (stopping) {
      if (children.size === 0) process.exit(0);
      return;
    }
    process.stderr.write(`node ${n} exited (${code ?? signal}); starting it again in 1 s\n`);
    setTimeout(() => start(n), 1000).unref();
  });
}

for (let n = 1; n <= nodes; n++) start(n);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) child.kill('SIGTERM');
  });
}
