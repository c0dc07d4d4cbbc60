/**
 * Widget configuration: a `CustomConfigParameters` object per tenant, optionally overridden per
 * page (`urlId`). The rules of pages, votes, flags and polls read the effective settings: the
 * defaults below, then the tenant's object, then the page's, each field of a later level
 * replacing the same field of an earlier one.
 */
import { createHash } from 'node:crypto';
import type { Doc } from '../../storage/store.js';
import { CUSTOM_CONFIG_PROPERTIES } from './widget-config-schema.js';

/**
 * Fields this server adds to `CustomConfigParameters` for rules the API names but gives no
 * setting for. Documented in docs/widget-config.md.
 */
export const WIDGET_CONFIG_EXTENSIONS = {
  /** Flags from distinct users (or anonymous sessions) that hide a comment; null: never. */
  flagHideThreshold: { type: ['integer', 'null'], minimum: 1, maximum: 1_000_000 },
  /** Mask profanity in new and edited comments. */
  enableProfanityFilter: { type: 'boolean' },
  /** Refuse creating and changing polls (`polls-disabled`). */
  disablePolls: { type: 'boolean' },
  /** Distinct reaction ids a page may have (`/page-reacts/v2`); a new one beyond it is `too-many-reaction-ids`. */
  maxReactionIdsPerPage: { type: 'integer', minimum: 1, maximum: 1000 },
} as const;

/**
 * Bounds on what the API description leaves unbounded, so that no configuration is larger than
 * storage, settings views and widgets can carry: text, lists and string maps (translations).
 */
export const WIDGET_CONFIG_LIMITS = {
  /** Characters of a text field; `customCSS` and `headerHTML` take `longTextMax`. */
  textMax: 10_000,
  longTextMax: 100_000,
  /** Items of a list, and characters of each. */
  listMax: 500,
  listItemMax: 1_000,
  /** Entries of a string map (`translations`, `tos.textByLocale`). */
  mapMax: 2_000,
} as const;

const LONG_TEXT = new Set(['customCSS', 'headerHTML']);
/** The name `bounded` gives the items of a list. */
const LIST_ITEM = '[item]';

type JsonSchema = Record<string, unknown>;

function bounded(name: string, schema: JsonSchema): JsonSchema {
  const types = ([] as unknown[]).concat(schema['type'] ?? []);
  const out: JsonSchema = { ...schema };
  if (types.includes('string') && out['enum'] === undefined) {
    out['maxLength'] = LONG_TEXT.has(name) ? WIDGET_CONFIG_LIMITS.longTextMax : name === LIST_ITEM ? WIDGET_CONFIG_LIMITS.listItemMax : WIDGET_CONFIG_LIMITS.textMax;
  }
  if (types.includes('array')) {
    out['maxItems'] = WIDGET_CONFIG_LIMITS.listMax;
    if (out['items'] !== undefined) out['items'] = bounded(LIST_ITEM, out['items'] as JsonSchema);
  }
  if (types.includes('object')) {
    if (out['additionalProperties'] !== undefined && typeof out['additionalProperties'] === 'object') {
      out['maxProperties'] = WIDGET_CONFIG_LIMITS.mapMax;
      out['additionalProperties'] = bounded('', out['additionalProperties'] as JsonSchema);
    }
    if (out['properties'] !== undefined) {
      out['properties'] = Object.fromEntries(Object.entries(out['properties'] as Record<string, JsonSchema>).map(([k, v]) => [k, bounded(k, v)]));
    }
  }
  return out;
}

/** Schema of a stored configuration object (every field optional, no others), bounded. */
export const WIDGET_CONFIG_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(Object.entries({ ...CUSTOM_CONFIG_PROPERTIES, ...WIDGET_CONFIG_EXTENSIONS }).map(([k, v]) => [k, bounded(k, v as JsonSchema)])),
  additionalProperties: false,
} as const;

/** A stored configuration object: any subset of the schema's fields. */
export type WidgetConfig = Readonly<Record<string, unknown>>;

export interface SpamRule {
  readonly actions: readonly ('spam' | 'not-spam' | 'ignore-repeat')[];
  readonly commentContains?: string;
}

/** The settings the server's rules read, with their defaults applied. */
export interface Settings {
  readonly disableVoting: boolean;
  /** Votes (comment votes and poll votes) with only an `anonUserId`. */
  readonly allowAnonVotes: boolean;
  readonly allowAnonFlag: boolean;
  /** Anonymous commenting (no user id, no SSO). */
  readonly allowAnon: boolean;
  readonly flagHideThreshold: number | null;
  readonly maxCommentCharacterLength: number | null;
  readonly spamRules: readonly SpamRule[];
  readonly enableProfanityFilter: boolean;
  readonly requireSSO: boolean;
  readonly disablePolls: boolean;
  readonly maxReactionIdsPerPage: number;
  readonly disableBlocking: boolean;
  readonly disableAutoHashTagCreation: boolean;
  readonly readonly: boolean;
  readonly noNewRootComments: boolean;
  readonly pageSize: number | null;
  readonly defaultSortDirection: 'OF' | 'NF' | 'MR' | null;
  /**
   * The tenant's configured domains: browsers on other sites are refused by the public routes.
   * Empty: any site (the development default, until a domain is configured).
   */
  readonly allowedDomains: readonly string[];
  /** The merged object itself, for fields no rule reads but widgets do. */
  readonly config: WidgetConfig;
}

/** Defaults of the fields rules read; documented in docs/widget-config.md. */
export const SETTING_DEFAULTS = {
  disableVoting: false,
  allowAnonVotes: true,
  allowAnonFlag: true,
  allowAnon: true,
  flagHideThreshold: null,
  maxCommentCharacterLength: null,
  spamRules: [],
  enableProfanityFilter: false,
  requireSSO: false,
  disablePolls: false,
  maxReactionIdsPerPage: 50,
  disableBlocking: false,
  disableAutoHashTagCreation: false,
  readonly: false,
  noNewRootComments: false,
  pageSize: null,
  defaultSortDirection: null,
} as const satisfies Omit<Settings, 'config' | 'allowedDomains'>;

/** The effective settings of a page: defaults, then the tenant's object, then the page's; and the tenant's domains. */
export function effectiveSettings(tenant: WidgetConfig | undefined, page: WidgetConfig | undefined, allowedDomains: readonly string[] = []): Settings {
  const config: Record<string, unknown> = { ...tenant, ...page };
  const out: Record<string, unknown> = { config, allowedDomains };
  for (const [key, fallback] of Object.entries(SETTING_DEFAULTS)) {
    const value = config[key];
    out[key] = value === undefined ? fallback : value;
  }
  return out as unknown as Settings;
}

/** A stored configuration level: the tenant's (`urlId` null) or one page's. */
export interface WidgetConfigDoc extends Doc {
  tenantId: string;
  urlId: string | null;
  config: Record<string, unknown>;
  updatedAt: string;
}

/** The id of a configuration level. Page ids hash the urlId, which can be any length. */
export function widgetConfigId(tenantId: string, urlId: string | null): string {
  if (urlId === null) return `${tenantId}:tenant`;
  return `${tenantId}:page:${createHash('sha256').update(urlId).digest('hex')}`;
}
