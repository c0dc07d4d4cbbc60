/** The routes of identity, teams and white-label tenancy (docs/identity.md). */
import type { AnyRoute } from '../route.js';
import { auditLogRoutes } from './audit-logs.js';
import { moderatorRoutes } from './moderators.js';
import { ssoUserRoutes } from './sso-users.js';
import { tenantSignInRoutes } from './tenant-sign-in.js';
import { tenantPackageRoutes } from './tenant-packages.js';
import { tenantUserRoutes } from './tenant-users.js';
import { tenantRoutes } from './tenants.js';

export const identityRoutes: readonly AnyRoute[] = [...ssoUserRoutes, ...tenantUserRoutes, ...tenantSignInRoutes, ...moderatorRoutes, ...tenantRoutes, ...tenantPackageRoutes, ...auditLogRoutes];
