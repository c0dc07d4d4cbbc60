import { ApiError } from '../../engine/errors.js';
import { route } from '../route.js';

/** `GET /healthz`: 200 only while storage answers, and in cluster mode once the node was ready to serve every shard. */
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
];
