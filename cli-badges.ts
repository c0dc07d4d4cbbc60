/**
 * The `badge` commands of the operator's command line: a tenant's badge catalog, written to the
 * same storage the server uses (docs/badges.md). The server reads the catalog from storage each
 * time it awards, so a badge made here counts at once, even while the server runs.
 */
import { BADGE_COLLECTIONS, type TenantBadgeDoc, tenantBadgeView } from './actors/badge/badge-model.js';
import { newBadge } from './actors/badge/catalog-actor.js';
import type { BadgeInput } from './actors/badge/protocol.js';
import { newId } from './engine/ids.js';
import type { Store } from './storage/store.js';

/** Usage lines of the badge commands. */
export const BADGE_USAGE = `  cli badge create --tenant T --type N [--threshold N] [--name S] [--label S] [--description S] [--src URL] [--background C] [--border C] [--text C] [--css-class S] [--veteran-ms N] [--url-id U] [--disabled]
  cli badge list --tenant T
  cli badge enable|disable|delete --tenant T --id B`;

function intOf(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

function need(opts: Map<string, string>, name: string): string {
  const value = opts.get(name);
  if (value === undefined || value === 'true') throw new Error(`--${name} is required`);
  return value;
}

async function one(store: Store, tenantId: string, id: string): Promise<TenantBadgeDoc> {
  const doc = await store.get<TenantBadgeDoc>(BADGE_COLLECTIONS.catalog, id);
  if (doc === undefined || doc.tenantId !== tenantId) throw new Error(`tenant ${tenantId} has no badge ${id}`);
  return doc;
}

/** Runs `badge <verb>`; answers the JSON to print. */
export async function badgeCommand(store: Store, verb: string, opts: Map<string, string>): Promise<Record<string, unknown>> {
  const tenantId = need(opts, 'tenant');
  if (verb === 'create') {
    const input: BadgeInput = { type: intOf(need(opts, 'type'), 'type')! };
    const set = <K extends keyof BadgeInput>(key: K, value: BadgeInput[K] | undefined) => {
      if (value !== undefined) input[key] = value;
    };
    set('threshold', intOf(opts.get('threshold'), 'threshold'));
    set('veteranUserThresholdMillis', intOf(opts.get('veteran-ms'), 'veteran-ms'));
    set('name', opts.get('name'));
    set('displayLabel', opts.get('label'));
    set('description', opts.get('description'));
    set('displaySrc', opts.get('src'));
    set('backgroundColor', opts.get('background'));
    set('borderColor', opts.get('border'));
    set('textColor', opts.get('text'));
    set('cssClass', opts.get('css-class'));
    set('urlId', opts.get('url-id'));
    if (opts.get('disabled') === 'true') input.enabled = false;
    const doc = newBadge(tenantId, input, Date.now(), newId());
    await store.commit([{ op: 'insert', collection: BADGE_COLLECTIONS.catalog, doc }]);
    return { tenantBadge: tenantBadgeView(doc) };
  }
  if (verb === 'list') {
    const docs = await store.find<TenantBadgeDoc>(BADGE_COLLECTIONS.catalog, { tenantId }, { sort: [['_id', 1]] });
    return { tenantBadges: docs.map(tenantBadgeView) };
  }
  const id = need(opts, 'id');
  const doc = await one(store, tenantId, id);
  if (verb === 'delete') {
    await store.commit([{ op: 'delete', collection: BADGE_COLLECTIONS.catalog, id }]);
    return { deleted: id };
  }
  if (verb === 'enable' || verb === 'disable') {
    const next = { ...doc, enabled: verb === 'enable' };
    await store.commit([{ op: 'put', collection: BADGE_COLLECTIONS.catalog, doc: next }]);
    return { tenantBadge: tenantBadgeView(next) };
  }
  throw new Error(`unknown command: badge ${verb}\n${BADGE_USAGE}`);
}
