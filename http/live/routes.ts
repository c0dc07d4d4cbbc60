import { EventLogKind, eventLogActorId } from '../../actors/live/event-log-protocol.js';
import { ApiError } from '../../engine/errors.js';
import { RawJson, route, type RouteResult, type Schema } from '../route.js';
import { assertMayListen } from './page-access.js';
import { isNoUser, PROFILES_CHANNEL } from './sub-channel.js';
import { profileLog } from '../routes/public-pages.js';

interface EventLogQuery {
  urlId: string;
  startTime: number;
  endTime?: number;
  userIdWS?: string;
}

const EVENT_LOG_QUERY: Schema = {
  type: 'object',
  properties: {
    urlId: { type: 'string', minLength: 1, maxLength: 4096 },
    startTime: { type: 'integer', minimum: 0 },
    endTime: { type: 'integer', minimum: 0 },
    userIdWS: { type: 'string', maxLength: 8192 },
  },
  required: ['urlId', 'startTime'],
};

const TENANT_PARAM: Schema = {
  type: 'object',
  properties: { tenantId: { type: 'string', minLength: 1, maxLength: 8192 } },
  required: ['tenantId'],
};

/**
 * `GET /event-log/:tenantId?urlId&startTime&endTime&userIdWS`: a page's logged live events
 * whose `timestamp` is in [startTime, endTime], oldest first, for a widget catching up after a
 * reconnect. Public, like the events themselves. `tenantId` may also be the page's
 * `tenantIdWS` and `urlId` its `urlIdWS` (some official clients send those); ids of another
 * tenant name another page, whose log is empty. A given `userIdWS` must be this tenant's, and
 * pages that require single sign-on need one.
 */
export const liveRoutes = [
  route<EventLogQuery, undefined>({
    method: 'GET',
    path: '/event-log/:tenantId',
    access: 'public',
    params: TENANT_PARAM,
    query: EVENT_LOG_QUERY,
    missingCodes: { urlId: 'missing-url-id' },
    handle: async (req) => {
      const { app, params, query } = req;
      const given = params['tenantId']!;
      if (given === PROFILES_CHANNEL) return profileLog(req, given);
      const tenantId = app.liveIds.tenantOf(given) ?? given;
      const urlId = app.liveIds.urlIdOf(tenantId, query.urlId) ?? query.urlId;
      const userIdWS = query.userIdWS;
      let userId: string | null = null;
      if (userIdWS !== undefined && !isNoUser(userIdWS)) {
        userId = app.liveIds.userIdOf(tenantId, userIdWS) ?? null;
        if (userId === null) throw new ApiError('invalid-live-id', 'userIdWS was not issued for this tenant.');
      }
      const endTime = query.endTime ?? Number.MAX_SAFE_INTEGER;
      if (endTime < query.startTime) throw new ApiError('invalid-param', 'endTime must not be before startTime.');
      await assertMayListen(app.system, tenantId, urlId, userId);
      const window = await app.system.ask(EventLogKind, eventLogActorId(tenantId, urlId), 'read', { startTime: query.startTime, endTime });
      return new RawJson(`{"status":"success","events":${window.json},"hasMore":${window.more}}`);
    },
  }),
  route({
    method: 'GET',
    path: '/sub',
    access: 'public',
    query: { type: 'object', additionalProperties: true },
    handle: (): RouteResult => {
      throw new ApiError('websocket-required', 'Connect to /sub with a websocket: /sub?urlId=<urlIdWS>&userIdWS=<userIdWS>&tenantIdWS=<tenantIdWS>.');
    },
  }),
];
