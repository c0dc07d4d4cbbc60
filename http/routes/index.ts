import type { AnyRoute } from '../route.js';
import { domainConfigRoutes } from './domain-configs.js';
import { healthRoutes } from './health.js';
import { meRoutes } from './me.js';
import { tenantDailyUsageRoutes } from './tenant-daily-usage.js';
import { widgetConfigRoutes } from './widget-config.js';

/** Every HTTP route of the server. */
export const ROUTES: readonly AnyRoute[] = [...healthRoutes, ...meRoutes, ...tenantDailyUsageRoutes, ...domainConfigRoutes, ...widgetConfigRoutes];
