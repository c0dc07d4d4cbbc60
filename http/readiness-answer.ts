/** The answer to a readiness probe, the same on the public port and the metrics listener. */
import { ApiError } from '../engine/errors.js';
import type { ReadinessReport } from './readiness.js';

/** 200 with the checks when ready; otherwise the refusal that says why (503), with the checks. */
export function readinessResult(report: ReadinessReport): { ready: true; checks: ReadinessReport['checks'] } {
  if (report.ready) return { ready: true, checks: report.checks };
  const checks = report.checks;
  if (checks['draining'] === true) throw new ApiError('shutting-down', 'The server is draining before it stops; send new requests elsewhere.', { checks });
  if (checks['storageReachable'] === false) throw new ApiError('storage-unavailable', 'Storage is not answering.', { checks });
  throw new ApiError('cluster-unavailable', 'This node is not connected to NATS, or some shards have no node yet.', { checks });
}
