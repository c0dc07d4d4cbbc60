import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { usageView } from '../../actors/tenant/usage.js';
import { perObjects, route } from '../route.js';

interface UsageQuery {
  yearNumber?: number;
  monthNumber?: number;
  dayNumber?: number;
  year?: number;
  month?: number;
  day?: number;
  skip?: number;
}

/**
 * `GET /api/v1/tenant-daily-usage`: one object per day with activity, oldest first, up to 365.
 * Filters are `yearNumber`, `monthNumber`, `dayNumber` (the API's names; `year`, `month`,
 * `day` are accepted too). One credit per 10 objects returned.
 */
export const tenantDailyUsageRoutes = [
  route<UsageQuery, undefined, { tenantDailyUsages: Record<string, unknown>[] }>({
    method: 'GET',
    path: '/api/v1/tenant-daily-usage',
    access: 'tenant',
    query: {
      type: 'object',
      properties: {
        yearNumber: { type: 'integer', minimum: 1970, maximum: 9999 },
        monthNumber: { type: 'integer', minimum: 1, maximum: 12 },
        dayNumber: { type: 'integer', minimum: 1, maximum: 31 },
        year: { type: 'integer', minimum: 1970, maximum: 9999 },
        month: { type: 'integer', minimum: 1, maximum: 12 },
        day: { type: 'integer', minimum: 1, maximum: 31 },
        skip: { type: 'integer', minimum: 0 },
      },
    },
    credits: (_req, result) => perObjects(result.tenantDailyUsages.length, 10),
    handle: async ({ app, tenantId, query }) => {
      const filter: { yearNumber?: number; monthNumber?: number; dayNumber?: number; skip?: number } = {};
      const year = query.yearNumber ?? query.year;
      const month = query.monthNumber ?? query.month;
      const day = query.dayNumber ?? query.day;
      if (year !== undefined) filter.yearNumber = year;
      if (month !== undefined) filter.monthNumber = month;
      if (day !== undefined) filter.dayNumber = day;
      if (query.skip !== undefined) filter.skip = query.skip;
      // Charges still gathering reach the ledger first, so the list shows them.
      await app.charges.flush(tenantId);
      const docs = await app.system.ask(TenantKind, tenantId, 'listUsage', filter);
      return { tenantDailyUsages: docs.map(usageView) };
    },
  }),
];
