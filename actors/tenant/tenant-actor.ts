import { createHmac } from 'node:crypto';
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { accessChanged, tenantTopic } from '../live/live-events.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { SlidingWindowLimit } from '../../engine/sliding-window.js';
import { matchesAnyDigest, matchingDigest, newId } from '../../engine/ids.js';
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
import { Ledger, type UsageFilter } from './ledger.js';
import { signWebhook, type WebhookSignatures } from '../../webhooks/signing.js';
import { allowanceOf, type TenantPackageDoc } from './packages.js';
import { type Admitted, createChild, deletePackage, packageList, packageOf, savePackage, type TenantHost, type TenantSnapshot, updateTenant } from './tenant-admin.js';
import type { TenantDoc } from './tenant-record.js';
import type { ChargeMark, DailyUsageDoc, SsoBillingCounts, UsageCounts } from './usage.js';

export type { TenantDoc } from './tenant-record.js';
export type { TenantPackageDoc } from './packages.js';
export type { Admitted } from './tenant-admin.js';

export interface ApiKeyDoc extends Doc {
  tenantId: string;
  /** SHA-256 of the key. */
  hash: string;
  createdAt: string;
}

export interface UsageQuery {
  yearNumber?: number;
  monthNumber?: number;
  dayNumber?: number;
  skip?: number;
}

/** Most usage documents one call returns. */
export const USAGE_PAGE_SIZE = 365;
const HOUR_MS = 60 * 60 * 1000;

/** Stored keys are re-read at most this often when an unknown key is presented. */
const KEY_RELOAD_MS = 1000;

export type TenantProtocol = {
  /**
   * Checks the credential (a key hash, or null for an already verified token) and the allowance.
   * A managed tenant also admits its manager's keys (asking the manager: a manager never asks
   * the tenants it manages, so this cannot deadlock).
   */
  admit: { in: { keyHash: string | null }; out: Admitted };
  /** Whether the key is one of this tenant's (for the tenants it manages); its id if so. */
  checkKey: { in: { keyHash: string }; out: { keyId: string } | null };
  /** The record, domains and package in use, for the API; `deleting`: also while its deletion is under way. */
  read: { in: { deleting?: boolean } | null; out: TenantSnapshot };
  /** A tenant managed by this one (white labelling), created with its domains. */
  createChild: { in: { input: Readonly<Record<string, unknown>> }; out: TenantSnapshot };
  /** Changes the record; `own`: by the tenant's own key (packageId and paymentFrequency are then fixed). */
  updateTenant: { in: { input: Readonly<Record<string, unknown>>; own: boolean }; out: TenantSnapshot };
  listPackages: { in: null; out: TenantPackageDoc[] };
  getPackage: { in: { packageId: string }; out: TenantPackageDoc };
  /** Creates (`packageId` null), patches or replaces a package, its limits below `parent`'s. */
  savePackage: { in: { packageId: string | null; input: Readonly<Record<string, unknown>>; replace: boolean; parent: TenantPackageDoc }; out: TenantPackageDoc };
  deletePackage: { in: { packageId: string }; out: null };
  /** Starts the tenant's deletion (refused while it manages tenants): refuses every call from now on (durably) and drops its views. */
  beginDelete: { in: null; out: null };
  /**
   * Records a call's credits and usage counters, on the day of `at` (when the call was made);
   * negative values reverse an earlier charge.
   */
  charge: { in: { credits: number; counts?: UsageCounts; at: number; mark?: ChargeMark }; out: null };
  describe: { in: null; out: { id: string; name: string } };
  /** Sets today's counts of billable SSO users by class (counted by the tenant's directory). */
  recordSsoCounts: { in: { counts: SsoBillingCounts; at: number }; out: null };
  listUsage: { in: UsageQuery; out: DailyUsageDoc[] };
  listDomainConfigs: { in: null; out: DomainConfigDoc[] };
  getDomainConfig: { in: { domain: string }; out: DomainConfigDoc };
  addDomainConfig: { in: DomainConfigInput & { domain: string }; out: DomainConfigDoc };
  replaceDomainConfig: { in: { domain: string; input: DomainConfigInput & { domain: string } }; out: DomainConfigDoc };
  patchDomainConfig: { in: { domain: string; input: DomainConfigInput }; out: DomainConfigDoc };
  deleteDomainConfig: { in: { domain: string }; out: null };
  /** The effective settings of a page (or of the tenant, for `urlId` null), for rules to read. */
  settings: { in: { urlId: string | null }; out: Settings };
  /**
   * Whether `hash` is the hex HMAC-SHA256 of `message` under the tenant's API secret (secure
   * single sign-on). The secret itself never leaves the actor.
   */
  verifySso: { in: { message: string; hash: string }; out: boolean };
  /** The signature headers of a webhook delivery, made with the API secret (see webhooks/signing.ts). */
  signWebhook: { in: { id: string; timestamp: number; body: string }; out: WebhookSignatures };
  /** One configuration level as stored, and the page's effective configuration. */
  readWidgetConfig: { in: { urlId: string | null }; out: WidgetConfigView };
  /** Replaces (or, with `merge`, updates field by field) one configuration level. */
  writeWidgetConfig: { in: { urlId: string | null; config: WidgetConfig; merge: boolean }; out: WidgetConfigView };
  /** Removes a page's overrides, or resets the tenant's configuration to the defaults. */
  deleteWidgetConfig: { in: { urlId: string | null }; out: null };
  /**
   * Counts one page created by a public route (a like or reaction on a new urlId), refusing
   * with `rate-limited` once `perHour` were created in the last hour. Kept in memory: it slows
   * an abuser down, and a restart forgetting it costs nothing.
   */
  admitPublicPage: { in: { perHour: number }; out: null };
};

/**
 * What the HTTP layer needs to admit a call without a message (the `admission` view): the
 * tenant's key hashes and, under a fixed-price package, the credits left in `month`.
 */
export interface Admission {
  readonly keys: readonly Buffer[];
  /** The ids of `keys`, in the same order. */
  readonly keyIds: readonly string[];
  /** Whether the tenant's calls are audited (its package's `hasAuditing`). */
  readonly audited: boolean;
  /** The month (year × 12 + month) `remaining` is for. */
  readonly month: number;
  /** Credits left; null when the tenant is never refused for credits. */
  readonly remaining: number | null;
}

/** Views the tenant actor publishes. */
export const TENANT_VIEWS = {
  admission: 'admission',
  /** Effective settings, keyed by urlId ('' for the tenant's own). */
  settings: 'settings',
} as const;

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
  #keyHashes: Buffer[] = [];
  #keyIds: string[] = [];
  readonly #packages = new Map<string, TenantPackageDoc>();
  #keysLoadedAt = 0;
  #ledger: Ledger | undefined;
  #admission: Admission | undefined;
  readonly #domains = new Map<string, DomainConfigDoc>();
  #widgetTenant: WidgetConfig | undefined;
  readonly #widgetPages = new Map<string, WidgetConfig>();
  #publicPages: SlidingWindowLimit | undefined;

  override async onStart(): Promise<void> {
    this.#tenant = await this.store.get<TenantDoc>(C.tenants, this.id);
    if (this.#tenant === undefined) return;
    await this.#loadKeys();
    for (const pkg of await this.store.find<TenantPackageDoc>(C.tenantPackages, { tenantId: this.id })) this.#packages.set(pkg._id, pkg);
    this.#ledger = new Ledger(this.id, this.store, allowanceOf(this.#package));
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
        // The tenant may have been created (by the CLI, or by its manager) after this actor found it missing.
        await this.onStart();
        if (this.#tenant === undefined) throw new ApiError('invalid-tenant-id');
      }
      const tenant = this.#requireTenant();
      let keyTenantId = this.id;
      let keyId: string | null = null;
      if (keyHash !== null) {
        keyId = await this.#findKey(keyHash);
        if (keyId === null && tenant.managedByTenantId) {
          keyId = (await this.system.ask(TenantKind, tenant.managedByTenantId, 'checkKey', { keyHash }))?.keyId ?? null;
          keyTenantId = tenant.managedByTenantId;
        }
        if (keyId === null) throw new ApiError('invalid-api-key');
      }
      const ledger = this.#ledger!;
      const spent = await ledger.spent(clock.now());
      this.#publishAdmission();
      if (spent) throw new ApiError('credits-exhausted', undefined, { maxMonthlyAPICredits: ledger.allowance!.maxMonthlyAPICredits });
      return { tenantId: this.id, keyTenantId, keyId, audited: this.#package?.hasAuditing === true };
    },

    checkKey: async ({ keyHash }) => {
      this.allowUnconfirmed();
      this.#requireTenant();
      const keyId = await this.#findKey(keyHash);
      return keyId === null ? null : { keyId };
    },

    read: (options) => {
      const tenant = this.#tenant;
      if (tenant === undefined) throw new ApiError('invalid-tenant-id');
      return this.#snapshot(options?.deleting === true ? tenant : this.#requireTenant());
    },
    createChild: async ({ input }) => {
      this.#requireTenant();
      return createChild(this.#host, input, this.#package ?? null);
    },
    updateTenant: async ({ input, own }) => {
      this.#requireTenant();
      return this.#snapshot(await updateTenant(this.#host, input, own));
    },
    listPackages: () => packageList(this.#host),
    getPackage: ({ packageId }) => packageOf(this.#host, packageId),
    savePackage: ({ packageId, input, replace, parent }) => savePackage(this.#host, packageId, input, replace, parent),
    deletePackage: ({ packageId }) => deletePackage(this.#host, packageId),
    beginDelete: async () => {
      const tenant = this.#tenant;
      if (tenant === undefined) throw new ApiError('invalid-tenant-id');
      if (tenant.deletingAt) return null;
      // Counted here, where its managed tenants are created: none can appear in between.
      const managed = await this.store.count(C.tenants, { managedByTenantId: this.id });
      if (managed > 0) throw new ApiError('tenant-has-managed-tenants', `The tenant manages ${managed} tenants: delete them first.`);
      this.#tenant = { ...tenant, deletingAt: clock.now() };
      this.put(C.tenants, this.#tenant);
      this.clearView(TENANT_VIEWS.admission);
      this.clearView(TENANT_VIEWS.settings);
      this.#admission = undefined;
      this.#accessChanged(null);
      return null;
    },

    charge: async ({ credits, counts, at, mark }) => {
      // A tenant being deleted has no ledger left to charge (the call that deletes it included).
      if (this.#tenant === undefined || this.#tenant.deletingAt) return null;
      // A repeated charge is answered once what recorded it first is durable (the output gate).
      const doc = await this.#ledger!.record(credits, counts, at, mark);
      if (doc === undefined) return null;
      this.put(C.dailyUsage, doc);
      this.#publishAdmission();
      return null;
    },

    recordSsoCounts: async ({ counts, at }) => {
      if (this.#tenant === undefined || this.#tenant.deletingAt) return null;
      this.put(C.dailyUsage, await this.#ledger!.gauge(counts, at));
      return null;
    },

    describe: () => {
      // The tenant's identity does not depend on pending ledger writes.
      this.allowUnconfirmed();
      const tenant = this.#requireTenant();
      return { id: tenant._id, name: tenant.name };
    },

    listUsage: async ({ yearNumber, monthNumber, dayNumber, skip }) => {
      this.#requireTenant();
      const filter: UsageFilter = {};
      if (yearNumber !== undefined) filter.yearNumber = yearNumber;
      if (monthNumber !== undefined) filter.monthNumber = monthNumber;
      if (dayNumber !== undefined) filter.dayNumber = dayNumber;
      return this.#ledger!.list(filter, skip ?? 0, USAGE_PAGE_SIZE);
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
      this.#domainsChanged();
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
      this.#domainsChanged();
      return null;
    },

    settings: ({ urlId }) => {
      // Rules read settings on every vote and comment; a configuration change still on its way
      // to storage may already apply to them.
      this.allowUnconfirmed();
      this.#requireTenant();
      const settings = effectiveSettings(this.#widgetTenant, urlId === null ? undefined : this.#widgetPages.get(urlId), [...this.#domains.keys()]);
      this.setView(TENANT_VIEWS.settings, settings, urlId ?? '');
      return settings;
    },

    admitPublicPage: ({ perHour }) => {
      this.allowUnconfirmed();
      const now = clock.now();
      if (this.#publicPages?.max !== perHour) this.#publicPages = new SlidingWindowLimit(perHour, HOUR_MS);
      if (!this.#publicPages.allows('', now)) {
        throw new ApiError('rate-limited', `Widgets of this site created ${perHour} pages in the last hour; create pages through the API, or retry later.`, {
          retryAfter: 60,
        });
      }
      this.#publicPages.record('', now);
      return null;
    },

    verifySso: ({ message, hash }) => {
      this.allowUnconfirmed();
      const tenant = this.#requireTenant();
      const expected = createHmac('sha256', tenant.apiSecret).update(message).digest();
      const given = /^[0-9a-fA-F]{64}$/.test(hash) ? Buffer.from(hash, 'hex') : Buffer.alloc(0);
      return matchesAnyDigest([expected], given);
    },

    signWebhook: ({ id, timestamp, body }) => {
      this.allowUnconfirmed();
      return signWebhook(this.#requireTenant().apiSecret, id, timestamp, body);
    },

    readWidgetConfig: ({ urlId }) => {
      this.#requireTenant();
      return this.#widgetView(urlId);
    },

    writeWidgetConfig: ({ urlId, config, merge }) => {
      this.#requireTenant();
      this.clearView(TENANT_VIEWS.settings);
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
      this.#accessChanged(urlId);
      return this.#widgetView(urlId);
    },

    deleteWidgetConfig: ({ urlId }) => {
      this.#requireTenant();
      this.clearView(TENANT_VIEWS.settings);
      if (urlId === null) this.#widgetTenant = undefined;
      else if (!this.#widgetPages.delete(urlId)) throw new ApiError('not-found', 'This page has no configuration of its own.');
      this.remove(C.widgetConfigs, widgetConfigId(this.id, urlId));
      this.#accessChanged(urlId);
      return null;
    },
  };

  /** The sites allowed to host the widget changed: settings carry them, and open channels are checked again. */
  #domainsChanged(): void {
    this.clearView(TENANT_VIEWS.settings);
    this.#accessChanged(null);
  }

  /** Tells the server (live channels re-check who may listen) once the change is durable. */
  #accessChanged(urlId: string | null): void {
    this.publish(tenantTopic(this.id), accessChanged(this.id, urlId));
  }

  #widgetView(urlId: string | null): WidgetConfigView {
    const page = urlId === null ? undefined : this.#widgetPages.get(urlId);
    return {
      config: (urlId === null ? this.#widgetTenant : page) ?? {},
      effectiveConfig: { ...this.#widgetTenant, ...page },
    };
  }

  #requireTenant(): TenantDoc {
    if (this.#tenant === undefined) throw new ApiError('invalid-tenant-id');
    if (this.#tenant.deletingAt) throw new ApiError('tenant-deleted');
    return this.#tenant;
  }

  get #package(): TenantPackageDoc | undefined {
    const id = this.#tenant?.packageId;
    return id ? this.#packages.get(id) : undefined;
  }

  #snapshot(tenant: TenantDoc): TenantSnapshot {
    return { tenant: { ...tenant, apiSecret: '' }, domains: [...this.#domains.values()].sort((a, b) => (a.domain < b.domain ? -1 : 1)), package: this.#package ?? null };
  }

  /** What the white-label functions (tenant-admin.ts) use of this actor. */
  readonly #host: TenantHost = {
    id: this.id,
    store: this.store,
    tenant: () => this.#requireTenant(),
    domains: this.#domains,
    packages: this.#packages,
    commitNow: (ops) => this.commitNow(ops),
    changed: (tenant, domainsChanged) => {
      this.#tenant = tenant;
      this.#ledger!.allowance = allowanceOf(this.#package);
      this.#admission = undefined;
      this.#publishAdmission();
      if (domainsChanged) this.#domainsChanged();
    },
  };

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
    if (next.domain !== current.domain) this.#domainsChanged();
    return next;
  }

  /** The id of the key with this hash, reloading the keys (at most once a second) when it is unknown. */
  async #findKey(hash: string): Promise<string | null> {
    const find = () => {
      const index = matchingDigest(this.#keyHashes, Buffer.from(hash, 'hex'));
      return index < 0 ? null : this.#keyIds[index]!;
    };
    if (find() === null && clock.now() - this.#keysLoadedAt >= KEY_RELOAD_MS) await this.#loadKeys();
    return find();
  }

  /**
   * Republishes the admission view when the keys or the credits left changed. At once, not
   * after the ledger write: admission judges by the ledger in memory, as `admit` does.
   */
  #publishAdmission(): void {
    const ledger = this.#ledger!;
    const last = this.#admission;
    if (last !== undefined && last.keys === this.#keyHashes && last.month === ledger.month && last.remaining === ledger.remaining) return;
    if (this.#tenant?.deletingAt) return;
    this.#admission = { keys: this.#keyHashes, keyIds: this.#keyIds, audited: this.#package?.hasAuditing === true, month: ledger.month, remaining: ledger.remaining };
    this.setViewNow(TENANT_VIEWS.admission, this.#admission);
  }

  async #loadKeys(): Promise<void> {
    const keys = await this.store.find<ApiKeyDoc>(C.apiKeys, { tenantId: this.id });
    this.#keyHashes = keys.map((k) => Buffer.from(k.hash, 'hex'));
    this.#keyIds = keys.map((k) => k._id);
    this.#keysLoadedAt = clock.now();
  }
}

/** `tenant:<tenantId>` */
export const TenantKind = defineKind<TenantProtocol>('tenant');

/**
 * The effective widget settings of a page (`urlId` null: the tenant's own): from the tenant
 * actor's published view, else by asking it (which publishes them for the next reader).
 */
export function tenantSettings(system: ActorSystem, tenantId: string, urlId: string | null): Settings | Promise<Settings> {
  const published = system.peek(TenantKind, tenantId, TENANT_VIEWS.settings, urlId ?? '') as Settings | undefined;
  return published ?? system.ask(TenantKind, tenantId, 'settings', { urlId });
}
