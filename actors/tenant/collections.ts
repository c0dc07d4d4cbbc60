import type { CollectionSpec } from '../../storage/store.js';

/** Collection names of the tenant actor's data. */
export const TENANT_COLLECTIONS = {
  tenants: 'tenants',
  apiKeys: 'apiKeys',
  tenantPackages: 'tenantPackages',
  dailyUsage: 'tenantDailyUsage',
  domainConfigs: 'domainConfigs',
  widgetConfigs: 'widgetConfigs',
} as const;

export const tenantCollections: readonly CollectionSpec[] = [
  {
    name: TENANT_COLLECTIONS.tenants,
    tenantData: 'tenant-id',
    indexes: [
      // White-label children of a tenant, `GET /api/v1/tenants` order.
      { name: 'by_manager', fields: ['managedByTenantId', 'signUpDate', '_id'] },
      // Deletions under way, resumed at start-up.
      { name: 'by_deleting', fields: ['deletingAt'] },
    ],
  },
  { name: TENANT_COLLECTIONS.apiKeys, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  { name: TENANT_COLLECTIONS.tenantPackages, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  {
    name: TENANT_COLLECTIONS.dailyUsage,
    indexes: [{ name: 'by_tenant_day', fields: ['tenantId', 'yearNumber', 'monthNumber', 'dayNumber'], unique: true }],
  },
  {
    name: TENANT_COLLECTIONS.domainConfigs,
    indexes: [{ name: 'by_tenant_domain', fields: ['tenantId', 'domain'], unique: true }],
  },
  { name: TENANT_COLLECTIONS.widgetConfigs, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
];
