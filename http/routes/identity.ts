/** The routes of identity, teams and white-label tenancy (docs/identity.md). */
import type { AnyRoute } from '../route.js';
import { ssoUserRoutes } from './sso-users.js';

export const identityRoutes: readonly AnyRoute[] = [...ssoUserRoutes];
