import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { digestsEqual, newId } from '../../engine/ids.js';
import type { Doc } from '../../storage/store.js';
import { TENANT_COLLECTIONS as C } from './collections.js';
import {
  buildDomainConfig,
  DOMAIN_CONFIG_FIELDS,
  type DomainConfigDoc,
  type DomainConfigInput,
  identityOf,
  normalizeDomain,
} from './domain-configs.js';
import {
  effectiveSettings,
  type Settings,
  type WidgetConfig,
  type WidgetConfigDoc,
  widgetConfigId,
} from './widget-config.js';
import {
  type Allowance,
  allowanceSpent,
  type DailyUsageDoc,
  type Day,
  dayOf,
  emptyUsage,
  overageDelta,
  sameDay,
  sameMonth,
  USAGE_COUNTERS,
  type UsageCounts,
} from './usage.js';

export interface TenantDoc extends Doc {
  name: string;
  email?: string | null;
  signUpDate: string;
  packageId?: string | null;
  /** Shared secret for secure SSO payloads and webhook signatures (API keys are stored hashed). */
  apiSecret: string;
}

export interface ApiKeyDoc extends Doc {
  tenantId: string;
  /** SHA-256 of the key. */
  hash: string;
  createdAt: string;
}

export interface TenantPackageDoc extends Doc {
  tenantId: string;
  name: string;
  maxMonthlyAPICredits: number;
  hasFlexPricing: boolean;
}

export interface UsageQuery {
  yearNumber?: number;
  monthNumber?: number;
  dayNumber?: number;
  skip?: number;
}

/** Most usage documents one call returns. */
export const USAGE_PAGE_SIZE = 365;
/** Stored keys are re-read at most this often when an unknown key is presented. */
const KEY_RELOAD_MS = 1000;

export type TenantProtocol = {
  /** Checks the credential (a key hash, or null for an already verified token) and the allowance. */
  admit: { in: { keyHash: string | null }; out: { tenantId: string } };
  /** Records a call's credits and usage counters; negative values reverse an earlier charge. */
  charge: { in: { credits: number; counts?: UsageCounts }; out: null };
  describe: { in: null; out: { id: string; name: string } };
  listUsage: { in: UsageQuery; out: DailyUsageDoc[] };
  listDomainConfigs: { in: null; out: DomainConfigDoc[] };
  getDomainConfig: { in: { domain: string }; out: DomainConfigDoc };
  addDomainConfig: { in: DomainConfigInput & { domain: string }; out: DomainConfigDoc };
  replaceDomainConfig: { in: { domain: string; input: DomainConfigInput & { domain: string } }; out: DomainConfigDoc };
  patchDomainConfig: { in: { domain: string; input: DomainConfigInput }; out: DomainConfigDoc };
  deleteDomainConfig: { in: { domain: string }; out: null };
  /** The effective settings of a page (or of the tenant, for `urlId` null), for rules to read. */
  settings: { in: { urlId: string | null }; out: Settings };
  /** One configuration level as stored, and the page's effective configuration. */
  readWidgetConfig: { in: { urlId: string | null }; out: WidgetConfigView };
  /** Replaces (or, with `merge`, updates field by field) one configuration level. */
  writeWidgetConfig: { in: { urlId: string | null; config: WidgetConfig; merge: boolean }; out: WidgetConfigView };
  /** Removes a page's overrides, or resets the tenant's configuration to the defaults. */
  deleteWidgetConfig: { in: { urlId: string | null }; out: null };
};

export type WidgetConfigView = {
  /** What is stored at the level asked for. */
  config: WidgetConfig;
  /** Tenant configuration with the page's overrides applied (defaults not filled in). */
  effectiveConfig: WidgetConfig;
};

/**
 * One tenant: its credentials, its credit ledger and daily usage, and its domain
 * configurations. Every authenticated call passes through here twice: `admit` before the
 * work (answered without waiting on pending ledger writes) and `charge` after it.
 */
export class TenantActor extends Actor<TenantProtocol> {
  #tenant: TenantDoc | undefined;
  #keyHashes: string[] = [];
  #keysLoadedAt = 0;
  #allowance: Allowance | undefined;
  #day: Day = dayOf(clock.now());
  #today: DailyUsageDoc | undefined;
  #monthCredits = 0;
  readonly #domains = new Map<string, DomainConfigDoc>();
  #widgetTenant: WidgetConfig | undefined;
  readonly #widgetPages = new Map<string, WidgetConfig>();

  override async onStart(): Promise<void> {
    this.#tenant = await this.store.get<TenantDoc>(C.tenants, this.id);
    if (this.#tenant === undefined) return;
    await this.#loadKeys();
    if (this.#tenant.packageId) {
      const pkg = await this.store.get<TenantPackageDoc>(C.tenantPackages, this.#tenant.packageId);
      if (pkg) this.#allowance = { maxMonthlyAPICredits: pkg.maxMonthlyAPICredits, hasFlexPricing: pkg.hasFlexPricing };
    }
    this.#day = dayOf(clock.now());
    const month = await this.store.find<DailyUsageDoc>(C.dailyUsage, {
      tenantId: this.id,
      yearNumber: this.#day.yearNumber,
      monthNumber: this.#day.monthNumber,
    });
    this.#monthCredits = month.reduce((sum, doc) => sum + doc.apiCreditsUsed, 0);
    this.#today = month.find((doc) => doc.dayNumber === this.#day.dayNumber);
    for (const doc of await this.store.find<DomainConfigDoc>(C.domainConfigs, { tenantId: this.id })) {
      this.#domains.set(doc.domain, doc);
    }
    for (const doc of await this.store.find<WidgetConfigDoc>(C.widgetConfigs, { tenantId: this.id })) {
      if (doc.urlId === null) this.#widgetTenant = doc.config;
      else this.#widgetPages.set(doc.urlId, doc.config);
    }
  }

  readonly handlers: Handlers<TenantProtocol> = {
    admit: async ({ keyHash }) => {
      // Whether a credential is valid does not depend on this actor's pending ledger writes.
      this.allowUnconfirmed();
      if (this.#tenant === undefined) {
        // The tenant may have been created (by the CLI) after this actor found it missing.
        await this.onStart();
        if (this.#tenant === undefined) throw new ApiError('invalid-tenant-id');
      }
      if (keyHash !== null && !this.#knownKey(keyHash)) {
        if (clock.now() - this.#keysLoadedAt >= KEY_RELOAD_MS) await this.#loadKeys();
        if (!this.#knownKey(keyHash)) throw new ApiError('invalid-api-key');
      }
      this.#rollDay();
      if (allowanceSpent(this.#allowance, this.#monthCredits)) {
        throw new ApiError('credits-exhausted', undefined, { maxMonthlyAPICredits: this.#allowance!.maxMonthlyAPICredits });
      }
      return { tenantId: this.id };
    },

    charge: ({ credits, counts }) => {
      this.#requireTenant();
      this.#rollDay();
      const before = this.#today ?? emptyUsage(this.id, this.#day, clock.now());
      // Refunds are negative; a refund landing just after midnight must not go below zero.
      const next: DailyUsageDoc = { ...before, apiCreditsUsed: Math.max(0, before.apiCreditsUsed + credits) };
      if (counts) {
        for (const counter of USAGE_COUNTERS) {
          const n = counts[counter];
          if (n) next[counter] = Math.max(0, next[counter] + n);
        }
      }
      const overage = overageDelta(this.#allowance, this.#monthCredits, credits);
      if (overage !== 0) next.overageCredits = Math.max(0, (before.overageCredits ?? 0) + overage);
      this.#monthCredits = Math.max(0, this.#monthCredits + credits);
      this.#today = next;
      this.put(C.dailyUsage, next);
      return null;
    },

    describe: () => {
      const tenant = this.#requireTenant();
      return { id: tenant._id, name: tenant.name };
    },

    listUsage: async ({ yearNumber, monthNumber, dayNumber, skip }) => {
      this.#requireTenant();
      const filter: Record<string, number | string> = { tenantId: this.id };
      if (yearNumber !== undefined) filter['yearNumber'] = yearNumber;
      if (monthNumber !== undefined) filter['monthNumber'] = monthNumber;
      if (dayNumber !== undefined) filter['dayNumber'] = dayNumber;
      const docs = await this.store.find<DailyUsageDoc>(C.dailyUsage, filter, {
        sort: [['yearNumber', 1], ['monthNumber', 1], ['dayNumber', 1]],
        skip: skip ?? 0,
        limit: USAGE_PAGE_SIZE,
      });
      // Today's document may hold charges still on their way to storage; the reply waits for
      // them, and shows them.
      const today = this.#today;
      if (today && Object.entries(filter).every(([k, v]) => today[k] === v)) {
        const at = docs.findIndex((doc) => doc._id === today._id);
        if (at >= 0) docs[at] = today;
        else if (docs.length < USAGE_PAGE_SIZE && (docs.length > 0 || (skip ?? 0) === 0)) docs.push(today);
      }
      return docs;
    },

    listDomainConfigs: () => {
      this.#requireTenant();
      return [...this.#domains.values()].sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
    },

    getDomainConfig: ({ domain }) => this.#domainConfig(domain),

    addDomainConfig: (input) => {
      this.#requireTenant();
      const domain = normalizeDomain(input.domain);
      if (this.#domains.has(domain)) throw new ApiError('domain-config-exists', `A configuration for ${domain} already exists.`);
      const now = clock.now();
      const doc = buildDomainConfig({ _id: newId(now), tenantId: this.id, createdAt: new Date(now).toISOString() }, domain, input);
      this.#domains.set(domain, doc);
      this.insert(C.domainConfigs, doc);
      return doc;
    },

    replaceDomainConfig: ({ domain, input }) => {
      const current = this.#domainConfig(domain);
      const nextDomain = normalizeDomain(input.domain);
      return this.#save(current, buildDomainConfig(identityOf(current), nextDomain, input));
    },

    patchDomainConfig: ({ domain, input }) => {
      const current = this.#domainConfig(domain);
      const nextDomain = input.domain === undefined ? current.domain : normalizeDomain(input.domain);
      const merged: DomainConfigInput = {};
      for (const field of DOMAIN_CONFIG_FIELDS) {
        const value = input[field] ?? current[field];
        if (value !== undefined) (merged as Record<string, unknown>)[field] = value;
      }
      return this.#save(current, buildDomainConfig(identityOf(current), nextDomain, merged));
    },

    deleteDomainConfig: ({ domain }) => {
      const current = this.#domainConfig(domain);
      this.#domains.delete(current.domain);
      this.remove(C.domainConfigs, current._id);
      return null;
    },

    settings: ({ urlId }) => {
      // Rules read settings on every vote and comment; a configuration change still on its way
      // to storage may already apply to them.
      this.allowUnconfirmed();
      this.#requireTenant();
      return effectiveSettings(this.#widgetTenant, urlId === null ? undefined : this.#widgetPages.get(urlId));
    },

    readWidgetConfig: ({ urlId }) => {
      this.#requireTenant();
      return this.#widgetView(urlId);
    },

    writeWidgetConfig: ({ urlId, config, merge }) => {
      this.#requireTenant();
      const current = (urlId === null ? this.#widgetTenant : this.#widgetPages.get(urlId)) ?? {};
      const next = merge ? { ...current, ...config } : { ...config };
      if (urlId === null) this.#widgetTenant = next;
      else this.#widgetPages.set(urlId, next);
      const doc: WidgetConfigDoc = {
        _id: widgetConfigId(this.id, urlId),
        tenantId: this.id,
        urlId,
        config: next,
        updatedAt: new Date(clock.now()).toISOString(),
      };
      this.put(C.widgetConfigs, doc);
      return this.#widgetView(urlId);
    },

    deleteWidgetConfig: ({ urlId }) => {
      this.#requireTenant();
      if (urlId === null) this.#widgetTenant = undefined;
      else if (!this.#widgetPages.delete(urlId)) throw new ApiError('not-found', 'This page has no configuration of its own.');
      this.remove(C.widgetConfigs, widgetConfigId(this.id, urlId));
      return null;
    },
  };

  #widgetView(urlId: string | null): WidgetConfigView {
    const page = urlId === null ? undefined : this.#widgetPages.get(urlId);
    return {
      config: (urlId === null ? this.#widgetTenant : page) ?? {},
      effectiveConfig: { ...this.#widgetTenant, ...page },
    };
  }

  #requireTenant(): TenantDoc {
    if (this.#tenant === undefined) throw new ApiError('invalid-tenant-id');
    return this.#tenant;
  }

  #domainConfig(domain: string): DomainConfigDoc {
    this.#requireTenant();
    const doc = this.#domains.get(domain.trim().toLowerCase());
    if (doc === undefined) throw new ApiError('not-found', `No configuration for domain ${domain}.`);
    return doc;
  }

  #save(current: DomainConfigDoc, next: DomainConfigDoc): DomainConfigDoc {
    if (next.domain !== current.domain && this.#domains.has(next.domain)) {
      throw new ApiError('domain-config-exists', `A configuration for ${next.domain} already exists.`);
    }
    this.#domains.delete(current.domain);
    this.#domains.set(next.domain, next);
    this.put(C.domainConfigs, next);
    return next;
  }

  #knownKey(hash: string): boolean {
    let found = false;
    // Compare against every key, so the time taken does not reveal which one matched.
    for (const known of this.#keyHashes) if (digestsEqual(known, hash)) found = true;
    return found;
  }

  async #loadKeys(): Promise<void> {
    const keys = await this.store.find<ApiKeyDoc>(C.apiKeys, { tenantId: this.id });
    this.#keyHashes = keys.map((k) => k.hash);
    this.#keysLoadedAt = clock.now();
  }

  #rollDay(): void {
    const day = dayOf(clock.now());
    if (sameDay(day, this.#day)) return;
    if (!sameMonth(day, this.#day)) this.#monthCredits = 0;
    this.#day = day;
    this.#today = undefined;
  }
}

/** `tenant:<tenantId>` */
export const TenantKind = defineKind<TenantProtocol>('tenant');
