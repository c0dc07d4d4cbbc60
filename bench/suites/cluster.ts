/**
 * Cluster mode's overhead (on two cores the point is overhead, not speed-up): votes and list
 * reads through one port with one node and then two (a private nats-server and MongoDB:
 * MONGODB_URI, else FerretDB from `.tools/bin`), and what a forwarded ask costs against a local
 * one: `GET /api/v1/me` sent to the node holding the tenant's actor, then to the other node of
 * the same cluster (each node on a port of its own for this phase), with the CPU of both nodes
 * per request and wrk's p99.
 */
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { shardOf } from '../../engine/cluster/shards.js';
import { startFerretDb } from '../../test/fixtures/ferretdb.js';
import { natsAvailable, startNats } from '../../test/fixtures/nats.js';
import { freePort } from '../../test/fixtures/ports.js';
import { processCpuSeconds } from '../lib/cpu.js';
import { load, type LoadResult, type LoadSpec } from '../lib/load.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { luaScript, seed } from './votes-post.js';

const SHARDS = 256;

/** Warm-up, then a measured run, with the CPU of every node per completed request. */
async function measure(ctx: SuiteContext, label: string, spec: LoadSpec, nodes: readonly ServerProcess[]): Promise<{ result: LoadResult; cpuUs: number }> {
  const tool = ctx.options.tool;
  if (ctx.options.warmupSeconds > 0) await load({ ...spec, tool, durationSeconds: ctx.options.warmupSeconds });
  const before = nodes.map((n) => processCpuSeconds(n.pid) ?? 0);
  const result = await load({ ...spec, tool, durationSeconds: ctx.options.durationSeconds });
  const spent = nodes.reduce((sum, n, i) => sum + (processCpuSeconds(n.pid) ?? 0) - before[i]!, 0);
  const cpuUs = (spent / Math.max(1, result.requests)) * 1e6;
  ctx.row({ label: `${label} (CPU ${cpuUs.toFixed(0)} µs/req, all nodes)`, role: 'subject', throughput: result.rps, unit: 'req/s', p50Ms: result.latencyMs.p50, p99Ms: result.latencyMs.p99, errors: result.errors.total });
  ctx.progress(`${label}: ${result.rps.toFixed(0)} req/s, p99 ${result.latencyMs.p99} ms, ${cpuUs.toFixed(0)} µs CPU per request`);
  return { result, cpuUs };
}

async function run(ctx: SuiteContext): Promise<void> {
  if (!natsAvailable()) throw new Error('the cluster suite needs nats-server on PATH (apt-get install nats-server)');
  let mongoUri = process.env['MONGODB_URI'];
  if (!mongoUri) {
    const ferret = await startFerretDb();
    ctx.onCleanup(() => ferret.destroy());
    mongoUri = ferret.uri;
    ctx.note('MongoDB is FerretDB (SQLite) started for the run: durable writes cost far more than on LMDB, so compare cluster rows with each other.');
  }
  const nats = await startNats();
  ctx.onCleanup(() => nats.destroy());
  const connections = ctx.options.connections ?? 64;
  const baseline = await ctx.startBaseline();
  const hello = await load({ url: baseline.url, connections, durationSeconds: ctx.options.durationSeconds, tool: ctx.options.tool });
  ctx.row({ label: 'hello world (uWebSockets.js)', role: 'baseline', throughput: hello.rps, unit: 'req/s', p50Ms: hello.latencyMs.p50, p99Ms: hello.latencyMs.p99 });

  // One port, one node then two.
  const port = await freePort();
  const env = (db: string, node: string, onPort: number) => ({ NATS_URL: nats.url, MONGODB_URI: mongoUri!, MONGODB_DB: db, PORT: String(onPort), NODE_ID: node, CLUSTER_NAME: db });
  const first = await ctx.startServer({ env: env('bench_one_port', 'a', port) });
  const ids = await seed(first);
  const votes = (): LoadSpec => ({ url: `${first.url}/api/v1/votes`, method: 'POST', headers: first.authHeaders, lua: luaScript(ids), connections });
  const reads = (): LoadSpec => ({ url: `${first.url}/api/v1/comments?urlId=bench-votes`, headers: first.authHeaders, connections });
  const one = [first];
  const votes1 = await measure(ctx, 'POST /api/v1/votes, 1 node', votes(), one);
  const reads1 = await measure(ctx, 'GET /api/v1/comments, 1 node', reads(), one);
  const second = await ctx.startServer({ env: { ...env('bench_one_port', 'b', port), DEMO_TENANT: 'false' }, tenant: first.tenant });
  // Let the shards settle on both nodes before measuring.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const two = [first, second];
  const votes2 = await measure(ctx, 'POST /api/v1/votes, 2 nodes, one port', votes(), two);
  const reads2 = await measure(ctx, 'GET /api/v1/comments, 2 nodes, one port', reads(), two);
  ctx.figure({ key: 'votesCpu1', label: 'CPU per vote, 1 node', value: votes1.cpuUs, unit: 'µs', digits: 0 });
  ctx.figure({ key: 'votesCpu2', label: 'CPU per vote, 2 nodes (both counted)', value: votes2.cpuUs, unit: 'µs', digits: 0 });
  ctx.figure({ key: 'readsCpu1', label: 'CPU per list read, 1 node', value: reads1.cpuUs, unit: 'µs', digits: 0 });
  ctx.figure({ key: 'readsCpu2', label: 'CPU per list read, 2 nodes (both counted)', value: reads2.cpuUs, unit: 'µs', digits: 0 });
  ctx.figure({ key: 'votes2To1', label: 'votes per second, 2 nodes ÷ 1 node', value: votes2.result.rps / votes1.result.rps, unit: '×', digits: 2 });
  ctx.figure({ key: 'reads2To1', label: 'list reads per second, 2 nodes ÷ 1 node', value: reads2.result.rps / reads1.result.rps, unit: '×', digits: 2 });

  // A forwarded ask against a local one: two nodes of one cluster, each on its own port.
  const x = await ctx.startServer({ env: env('bench_forward', 'x', 0) });
  const y = await ctx.startServer({ env: { ...env('bench_forward', 'y', 0), DEMO_TENANT: 'false' }, tenant: x.tenant });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const nc = await connect({ servers: nats.url });
  const kv = await new Kvm(nc).open('bench_forward-leases');
  const lease = await kv.get(`s.${shardOf(`tenant:${x.tenant.tenantId}`, SHARDS)}`);
  await nc.close();
  const owner = lease === null ? undefined : (lease.json<{ node: string }>().node as string);
  if (owner !== 'x' && owner !== 'y') throw new Error(`cannot tell which node holds the tenant (lease: ${lease?.string()})`);
  const [home, away] = owner === 'x' ? [x, y] : [y, x];
  const me = (node: ServerProcess): LoadSpec => ({ url: `${node.url}/api/v1/me`, headers: x.authHeaders, connections });
  const local = await measure(ctx, 'GET /api/v1/me on the node holding the tenant (local ask)', me(home), [x, y]);
  const forwarded = await measure(ctx, 'GET /api/v1/me on the other node (forwarded ask)', me(away), [x, y]);
  ctx.figure({ key: 'localCpuUs', label: 'CPU per /me, local ask (both nodes)', value: local.cpuUs, unit: 'µs', digits: 0 });
  ctx.figure({ key: 'forwardedCpuUs', label: 'CPU per /me, forwarded ask (both nodes)', value: forwarded.cpuUs, unit: 'µs', digits: 0 });
  ctx.figure({ key: 'forwardCostUs', label: 'extra CPU of forwarding one ask', value: forwarded.cpuUs - local.cpuUs, unit: 'µs', digits: 0 });
  ctx.figure({ key: 'localP99Ms', label: 'p99, local ask', value: local.result.latencyMs.p99, unit: 'ms', digits: 2 });
  ctx.figure({ key: 'forwardedP99Ms', label: 'p99, forwarded ask', value: forwarded.result.latencyMs.p99, unit: 'ms', digits: 2 });
  const failed = [votes1, reads1, votes2, reads2, local, forwarded].reduce((sum, m) => sum + m.result.errors.total, 0);
  ctx.figure({ key: 'failedRequests', label: 'failed requests in all phases', value: failed, unit: '' });
  ctx.note(`${connections} connections per phase. CPU is that of every node process together (forwarding costs on both sides).`);
}

/** See the module comment. */
export const cluster: Suite = {
  name: 'cluster',
  description: 'Votes and list reads through one port with 1 and 2 cluster nodes, and a forwarded ask against a local one (CPU per request, p99).',
  targets: [{ figure: 'failedRequests', op: '<=', value: 0, description: 'no failed request' }],
  run,
};
