/**
 * Tenant packages: the limits and prices a tenant works under, one in use at a time. A white
 * label tenant makes them for the tenants it manages (at most five each), every limit lower
 * than its own package's. Pure rules; the tenant actor of the package's tenant stores them.
 */
import { ApiError } from '../../engine/errors.js';
import type { Doc } from '../../storage/store.js';
import type { Allowance } from './usage.js';

/** Packages one managed tenant may have. */
export const MAX_PACKAGES_PER_TENANT = 5;

/** The limits, compared with the parent's. Absent (null) means unlimited. */
export const MAX_FIELDS = [
  'maxMonthlyPageLoads',
  'maxMonthlyAPICredits',
  'maxMonthlySmallWidgetsCredits',
  'maxMonthlyComments',
  'maxConcurrentUsers',
  'maxTenantUsers',
  'maxSSOUsers',
  'maxModerators',
  'maxDomains',
  'maxWhiteLabeledTenants',
  'maxMonthlyEventLogRequests',
  'maxCustomCollectionSize',
] as const;

/** Flex parameters a flex package must have (all of them, in the request that sets `hasFlexPricing`). */
export const FLEX_REQUIRED = [
  'flexPageLoadCostCents',
  'flexPageLoadUnit',
  'flexCommentCostCents',
  'flexCommentUnit',
  'flexSSOUserCostCents',
  'flexSSOUserUnit',
  'flexAPICreditCostCents',
  'flexAPICreditUnit',
  'flexModeratorCostCents',
  'flexModeratorUnit',
  'flexAdminCostCents',
  'flexAdminUnit',
  'flexDomainCostCents',
  'flexDomainUnit',
  'flexMinimumCostCents',
] as const;

/** Flex parameters a flex package may have besides. */
export const FLEX_OPTIONAL = [
  'flexSSOAdminCostCents',
  'flexSSOAdminUnit',
  'flexSSOModeratorCostCents',
  'flexSSOModeratorUnit',
  'flexManagedTenantCostCents',
  'flexSmallWidgetsCreditCostCents',
  'flexSmallWidgetsCreditUnit',
  'flexLLMCostCents',
  'flexLLMUnit',
] as const;

/** Fields a package must have when created or replaced. */
export const PACKAGE_REQUIRED = [
  'name',
  'monthlyCostUSD',
  'yearlyCostUSD',
  'maxMonthlyPageLoads',
  'maxMonthlyAPICredits',
  'maxMonthlyComments',
  'maxConcurrentUsers',
  'maxTenantUsers',
  'maxSSOUsers',
  'maxModerators',
  'maxDomains',
  'hasDebranding',
  'forWhoText',
  'featureTaglines',
  'hasFlexPricing',
] as const;

/** Flags a package may set. */
export const PACKAGE_FLAGS = ['hasWhiteLabeling', 'hasDebranding', 'hasLLMSpamDetection', 'hasAuditing', 'hasFlexPricing', 'enableSAML'] as const;

export interface TenantPackageDoc extends Doc {
  tenantId: string;
  name: string;
  /** ISO date-time. */
  createdAt: string;
  /** Null: unlimited (packages made by the command line may leave limits out). */
  maxMonthlyAPICredits?: number | null;
  hasFlexPricing: boolean;
  /** Every API call that changes data is recorded in the audit log (docs/identity.md). */
  hasAuditing?: boolean;
  hasWhiteLabeling?: boolean;
  maxWhiteLabeledTenants?: number | null;
  maxTenantUsers?: number | null;
}

/** The credit allowance of a package (none: unlimited). */
export function allowanceOf(pkg: TenantPackageDoc | undefined | null): Allowance | undefined {
  if (pkg === undefined || pkg === null || typeof pkg.maxMonthlyAPICredits !== 'number') return undefined;
  return { maxMonthlyAPICredits: pkg.maxMonthlyAPICredits, hasFlexPricing: pkg.hasFlexPricing === true };
}

/** Whether a package lets its tenant manage tenants of its own. */
export function allowsWhiteLabel(pkg: TenantPackageDoc | undefined | null): boolean {
  return pkg != null && (pkg.hasWhiteLabeling === true || (typeof pkg.maxWhiteLabeledTenants === 'number' && pkg.maxWhiteLabeledTenants > 0));
}

function checkTexts(input: Readonly<Record<string, unknown>>): void {
  const name = input['name'];
  if (typeof name === 'string') {
    if (name.trim() === '') throw new ApiError('name-required', 'A package needs a name.');
    if (name.length > 50) throw new ApiError('name-too-long');
  }
  const forWho = input['forWhoText'];
  const forWhoItems = Array.isArray(forWho) ? forWho : typeof forWho === 'string' ? [forWho] : [];
  if (forWhoItems.some((item) => typeof item === 'string' && item.length > 200)) throw new ApiError('for-who-text-too-long');
  const taglines = input['featureTaglines'];
  if (Array.isArray(taglines) && taglines.some((item) => typeof item === 'string' && item.length > 100)) throw new ApiError('feature-tag-lines-too-long');
}

/** Flex parameters: all of them with `hasFlexPricing` true in the request, none on a package without flex pricing. */
function checkFlex(input: Readonly<Record<string, unknown>>, storedFlex: boolean): void {
  const given = [...FLEX_REQUIRED, ...FLEX_OPTIONAL].filter((field) => input[field] !== undefined);
  if (input['hasFlexPricing'] === true) {
    const missing = FLEX_REQUIRED.filter((field) => input[field] === undefined);
    if (missing.length > 0) throw new ApiError('flex-param-missing', `hasFlexPricing true needs ${missing.join(', ')}.`);
    return;
  }
  const flex = input['hasFlexPricing'] === undefined ? storedFlex : false;
  if (!flex && given.length > 0) throw new ApiError('unexpected-flex-param', `${given.join(', ')} only apply with hasFlexPricing true.`);
}

/**
 * Checks a package write against its parent's package: every limit the request sets must be
 * lower than the parent's (an unlimited parent bounds nothing), and a managed tenant cannot
 * manage tenants in turn.
 */
export function checkAgainstParent(input: Readonly<Record<string, unknown>>, parent: TenantPackageDoc): void {
  if (input['hasWhiteLabeling'] === true || (typeof input['maxWhiteLabeledTenants'] === 'number' && input['maxWhiteLabeledTenants'] > 0)) {
    throw new ApiError('nesting-not-allowed', 'A managed tenant cannot manage tenants: its package cannot allow white labelling.');
  }
  for (const field of MAX_FIELDS) {
    const mine = input[field];
    const theirs = parent[field];
    if (typeof mine === 'number' && typeof theirs === 'number' && !(mine < theirs)) {
      throw new ApiError('child-tenant-too-large', `${field} (${mine}) must be lower than the parent's (${theirs}).`);
    }
  }
}

/** The package after a write: created or replaced from `input`, or patched with it. */
export function writePackage(current: TenantPackageDoc | null, base: Pick<TenantPackageDoc, '_id' | 'tenantId' | 'createdAt'>, input: Readonly<Record<string, unknown>>, replace: boolean): TenantPackageDoc {
  if (input['tenantId'] !== undefined && input['tenantId'] !== base.tenantId) throw new ApiError('tenant-id-immutable');
  if (current === null || replace) {
    const missing = PACKAGE_REQUIRED.filter((field) => input[field] === undefined);
    if (missing.length > 0) throw new ApiError('missing-param', `A package needs ${missing.join(', ')}.`);
  }
  checkTexts(input);
  checkFlex(input, current?.hasFlexPricing === true && !replace);
  const { tenantId: _tenant, ...fields } = input;
  const next = { ...(current !== null && !replace ? current : {}), ...fields, ...base } as TenantPackageDoc;
  next.hasFlexPricing = next.hasFlexPricing === true;
  if (!next.hasFlexPricing) for (const field of [...FLEX_REQUIRED, ...FLEX_OPTIONAL]) delete next[field];
  return next;
}

/** A limit as the API's `TenantPackage` carries it: a number (unlimited: the largest safe integer). */
function limit(value: unknown): number {
  return typeof value === 'number' ? value : Number.MAX_SAFE_INTEGER;
}

/** The API shape (`TenantPackage`). */
export function packageView(pkg: TenantPackageDoc): Record<string, unknown> {
  const view: Record<string, unknown> = { ...pkg, id: pkg._id };
  view['monthlyCostUSD'] = pkg['monthlyCostUSD'] ?? null;
  view['yearlyCostUSD'] = pkg['yearlyCostUSD'] ?? null;
  view['monthlyStripePlanId'] = pkg['monthlyStripePlanId'] ?? null;
  view['yearlyStripePlanId'] = pkg['yearlyStripePlanId'] ?? null;
  for (const field of MAX_FIELDS) view[field] = limit(pkg[field]);
  for (const field of PACKAGE_FLAGS) view[field] = pkg[field] === true;
  const forWho = pkg['forWhoText'];
  view['forWhoText'] = Array.isArray(forWho) ? forWho.join('\n') : typeof forWho === 'string' ? forWho : '';
  view['featureTaglines'] = Array.isArray(pkg['featureTaglines']) ? pkg['featureTaglines'] : [];
  return view;
}
