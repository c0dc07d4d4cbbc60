/** Collections of identity, teams and white-label tenancy (users' own are declared with the user actor). */
import type { CollectionSpec } from '../storage/store.js';
import { auditCollections } from './audit/audit-model.js';
import { jobCollections } from './jobs/jobs.js';
import { moderatorCollections } from './moderator/moderator-model.js';

export const identityCollections: readonly CollectionSpec[] = [...jobCollections, ...moderatorCollections, ...auditCollections];
