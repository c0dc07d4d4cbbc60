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
  route<LevelQuery, WidgetConfig>({
    method: 'PUT',
    path: '/api/v1/widget-config',
    access: 'tenant',
    query: LEVEL,
    body: WIDGET_CONFIG_SCHEMA,
    handle: ({ app, tenantId, query, body }) =>
      app.system.ask(TenantKind, tenantId, 'writeWidgetConfig', { urlId: query.urlId ?? null, config: body, merge: false }),
  }),
  route<LevelQuery, WidgetConfig>({
    method: 'PATCH',
    path: '/api/v1/widget-config',
    access: 'tenant',
    query: LEVEL,
    body: { ...WIDGET_CONFIG_SCHEMA, minProperties: 1 },
    handle: ({ app, tenantId, query, body }) =>
      app.system.ask(TenantKind, tenantId, 'writeWidgetConfig', { urlId: query.urlId ?? null, config: body, merge: true }),
  }),
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
