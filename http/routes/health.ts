import { ApiError } from '../../engine/errors.js';
import { route } from '../route.js';
import { Readiness } from '../readiness.js';
import { readinessResult } from '../readiness-answer.js';

/**
 * `GET /healthz`: 200 only while storage answers, and in cluster mode once the node was ready to
 * serve every shard. `GET /readyz`: 200 only while this process should take traffic (http/readiness.ts).
 */
export const healthRoutes = [
  route({
    method: 'GET',
    path: '/healthz',
    access: 'open',
    handle: async ({ app }) => {
      try {
        await app.store.ping();
      } catch {
        throw new ApiError('storage-unavailable', 'Storage is not answering.');
      }
      if (app.clusterReady !== undefined && !app.clusterReady()) throw new ApiError('cluster-starting');
      return { storage: app.store.kind };
    },
  }),
  route({
    method: 'GET',
    path: '/readyz',
    access: 'open',
    handle: async ({ app }) => readinessResult(await (app.readiness ?? new Readiness(app.store)).check()),
  }),
];
