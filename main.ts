/** Starts the server with the configuration from the environment and flags. */
import { loadConfig } from './engine/config.js';
import { log } from './engine/log.js';
import { startServer } from './http/server.js';

const config = loadConfig();
log.setLevel(config.logLevel);

let server: Awaited<ReturnType<typeof startServer>>;
try {
  server = await startServer(config);
} catch (err) {
  // Refusals (another server holds the storage, cluster mode without MongoDB...) say why and exit non-zero.
  process.stderr.write(`Cannot start: ${(err as Error).message}\n`);
  log.error('start-failed', { err });
  process.exit(1);
}
const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
const base = `http://${shownHost}:${server.port}`;

if (server.demo) {
  const { tenantId, apiKey, apiSecret } = server.demo;
  process.stdout.write(
    [
      'Created a demo tenant (first start on an empty database):',
      `  tenantId:  ${tenantId}`,
      `  apiKey:    ${apiKey}`,
      `  apiSecret: ${apiSecret}`,
      'Try it:',
      `  curl -s "${base}/api/v1/me?tenantId=${tenantId}" -H "X-API-KEY: ${apiKey}"`,
      'Widgets are admitted only on localhost until you add your site\'s domain:',
      `  curl -s -X POST "${base}/api/v1/domain-configs?tenantId=${tenantId}" -H "X-API-KEY: ${apiKey}" -H "content-type: application/json" -d '{"domain":"blog.example.com"}'`,
      'See the comment widget (open it in two tabs to watch one update live):',
      `  ${base}/demo?tenantId=${tenantId}`,
      '',
    ].join('\n'),
  );
}
const node = server.nodeId === undefined ? '' : `, cluster ${config.clusterName} node ${server.nodeId}`;
process.stdout.write(`Listening on ${base} (storage: ${server.services.store.kind}${node})\n`);
if (server.metricsPort !== undefined) process.stdout.write(`Metrics on http://${config.metricsHost}:${server.metricsPort}/metrics\n`);
log.info('listening', { host: config.host, port: server.port, storage: server.services.store.kind, nodeId: server.nodeId });

let signalled = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    log.info('stopping', { signal });
    server.stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error('stop-failed', { err });
        process.exit(1);
      },
    );
  });
}
