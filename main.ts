/** Starts the server with the configuration from the environment and flags. */
import { loadConfig } from './engine/config.js';
import { log } from './engine/log.js';
import { startServer } from './http/server.js';

const config = loadConfig();
log.setLevel(config.logLevel);

const server = await startServer(config);
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
      '',
    ].join('\n'),
  );
}
process.stdout.write(`Listening on ${base} (storage: ${server.services.store.kind})\n`);
log.info('listening', { host: config.host, port: server.port, storage: server.services.store.kind });

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
