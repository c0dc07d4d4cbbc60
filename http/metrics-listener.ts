/**
 * The metrics listener: a second HTTP server, on its own port (`METRICS_PORT`) and by default
 * on loopback only (`METRICS_HOST`), never the public one. It serves:
 * - `GET /metrics`: every family in the Prometheus text format;
 * - `GET /readyz` and `GET /healthz`: the same probes as the public port, for orchestrators
 *   that probe a port the public never reaches.
 */
import { log } from '../engine/log.js';
import { setReady } from '../engine/metrics/readiness-meter.js';
import { scrape } from '../engine/metrics/registry.js';
import { readinessResult } from './readiness-answer.js';
import type { Readiness } from './readiness.js';
import { errorReply, successReply } from './respond.js';
import { HttpServer, type Reply } from './uws/index.js';

/** A running metrics listener. */
export interface MetricsListener {
  readonly port: number;
  close(): void;
}

const NOT_FOUND: Reply = { status: 404, body: 'Not found: this port serves /metrics, /readyz and /healthz.\n', contentType: 'text/plain; charset=utf-8' };

async function answer(path: string, readiness: Readiness): Promise<Reply> {
  if (path === '/metrics') {
    setReady((await readiness.check()).ready);
    const { contentType, text } = await scrape();
    return { status: 200, body: text, contentType };
  }
  if (path === '/readyz' || path === '/healthz') {
    try {
      const report = await readiness.check();
      if (path === '/healthz') {
        // Liveness: storage answers; draining or a cluster still settling does not make a process dead.
        if (report.checks['storageReachable'] !== true) return readinessReplyOf(report);
        return successReply({ storage: report.checks['storage'] as string });
      }
      return readinessReplyOf(report);
    } catch (err) {
      return errorReply(err);
    }
  }
  return NOT_FOUND;
}

function readinessReplyOf(report: Awaited<ReturnType<Readiness['check']>>): Reply {
  try {
    return successReply(readinessResult(report));
  } catch (err) {
    return errorReply(err);
  }
}

/** Starts the metrics listener on `host:port` (port 0 picks a free one). */
export async function startMetricsListener(host: string, port: number, readiness: Readiness): Promise<MetricsListener> {
  const http = new HttpServer({ maxBodyBytes: 0, trustProxy: false });
  http.onRequest((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.send({ status: 405, body: 'Only GET is served here.\n', contentType: 'text/plain; charset=utf-8', headers: [['allow', 'GET']] });
      return;
    }
    answer(req.path, readiness).then(
      (reply) => res.send(reply),
      (err: unknown) => {
        log.error('metrics-scrape-failed', { err });
        res.send({ status: 500, body: 'The metrics could not be gathered.\n', contentType: 'text/plain; charset=utf-8' });
      },
    );
  });
  const bound = await http.listen(host, port);
  log.info('metrics-listening', { host, port: bound });
  return { port: bound, close: () => http.close() };
}
