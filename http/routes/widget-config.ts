import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { WIDGET_CONFIG_SCHEMA, type WidgetConfig } from '../../actors/tenant/widget-config.js';
import { route, type Schema } from '../route.js';

interface LevelQuery {
  urlId?: string;
}

const LEVEL: Schema = {
  type: 'object',
  properties: { urlId: { type: 'string', minLength: 1, maxLength: 4096 } },
};

/** PUT replaces the object at a level; PATCH (`merge`) sets the given fields and keeps the rest. */
function writeRoute(method: 'PUT' | 'PATCH', body: Schema, merge: boolean) {
  return route<LevelQuery, WidgetConfig>({
    method,
    path: '/api/v1/widget-config',
    access: 'tenant',
    query: LEVEL,
    body,
    handle: ({ app, tenantId, query, body: config }) =>
      app.system.ask(TenantKind, tenantId, 'writeWidgetConfig', { urlId: query.urlId ?? null, config, merge }),
  });
}

/**
 * Widget configuration (`CustomConfigParameters`), per tenant or, with `urlId`, per page.
 * The settings the server's rules read are documented in docs/widget-config.md.
 */
export const widgetConfigRoutes = [
  route<LevelQuery, undefined>({
    method: 'GET',
    path: '/api/v1/widget-config',
    access: 'tenant',
    query: LEVEL,
    handle: ({ app, tenantId, query }) => app.system.ask(TenantKind, tenantId, 'readWidgetConfig', { urlId: query.urlId ?? null }),
  }),
  writeRoute('PUT', WIDGET_CONFIG_SCHEMA, false),
  writeRoute('PATCH', { ...WIDGET_CONFIG_SCHEMA, minProperties: 1 }, true),
  route<LevelQuery, undefined>({
    method: 'DELETE',
    path: '/api/v1/widget-config',
    access: 'tenant',
    query: LEVEL,
    handle: async ({ app, tenantId, query }) => {
      await app.system.ask(TenantKind, tenantId, 'deleteWidgetConfig', { urlId: query.urlId ?? null });
      return {};
    },
  }),
];
