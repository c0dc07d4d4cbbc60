/**
 * The moderation API's searches (docs/moderation.md, "Find"): users by name, pages by urlId,
 * the tenant's sites, a count of matching comments, and suggestions for the search box.
 */
import { ModerationQueryKind } from '../../actors/moderation/moderation-query-actor.js';
import { parseTextSearch, storageFilter } from '../../actors/moderation/moderation-query.js';
import { ReaderReadsKind } from '../../actors/reader/reader-reads-actor.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import type { UserDoc } from '../../actors/user/protocol.js';
import { MODERATOR_QUERY_PROPS, type Moderator, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { MODERATION_BASE, moderationFilterOf } from './moderate-comments.js';

const str = (max: number): Schema => ({ type: 'string', maxLength: max });
const LIMIT = 20;
const query = (props: Record<string, Schema>): Schema => ({ type: 'object', properties: { ...MODERATOR_QUERY_PROPS, ...props } });

interface SearchQuery extends ModeratorQuery {
  value?: string;
  'text-search'?: string;
  filters?: string;
  searchFilters?: string;
}

async function users(app: AppServices, moderator: Moderator, prefix: string): Promise<Record<string, unknown>[]> {
  if (prefix === '') return [];
  const found = new Map<string, UserDoc>();
  const variants = new Set([prefix, prefix[0]!.toUpperCase() + prefix.slice(1), prefix[0]!.toLowerCase() + prefix.slice(1)]);
  for (const variant of variants) for (const user of await app.system.ask(ReaderReadsKind, moderator.tenantId, 'searchUsers', { prefix: variant, limit: LIMIT })) found.set(user._id, user);
  return [...found.values()].slice(0, LIMIT).map((u) => ({ _id: u._id, username: u.username, displayName: u.displayName, avatarSrc: u.avatarSrc }));
}

async function pages(app: AppServices, moderator: Moderator, prefix: string): Promise<Record<string, unknown>[]> {
  if (prefix === '') return [];
  const docs = await app.system.ask(ModerationQueryKind, moderator.tenantId, 'pages', { prefix, limit: LIMIT });
  return docs.map((p) => ({ urlId: p.urlId, url: p.url ?? '', title: p.title, commentCount: p.commentCount }));
}

function searchRoute(path: string, props: Record<string, Schema>, handle: (req: RouteRequest<SearchQuery, undefined>, moderator: Moderator) => Promise<Record<string, unknown>>) {
  return route<SearchQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/${path}`,
    access: 'public',
    query: query(props),
    handle: async (req) => handle(req, await requireModerator(req)),
  });
}

/** Searches for the moderation page's search box. */
export const moderateSearchRoutes = [
  searchRoute('search/users', { value: str(100) }, async (req, m) => ({ users: await users(req.app, m, (req.query.value ?? '').trim()) })),
  searchRoute('search/pages', { value: str(1000) }, async (req, m) => ({ pages: await pages(req.app, m, (req.query.value ?? '').trim()) })),
  searchRoute('search/sites', { value: str(253) }, async (req, m) => {
    const value = (req.query.value ?? '').trim().toLowerCase();
    const configs = await req.app.system.ask(TenantKind, m.tenantId, 'listDomainConfigs', null);
    return { sites: configs.filter((c) => c.domain.toLowerCase().includes(value)).slice(0, LIMIT).map((c) => ({ domain: c.domain, logoSrc100px: (c as Record<string, unknown>)['logoSrc100px'] ?? null })) };
  }),
  searchRoute('search/comments/summary', { value: str(1000), filters: str(4000), searchFilters: str(4000) }, async (req, m) => {
    const text = parseTextSearch(req.query.value, moderationFilterOf(req.query.filters, 'filters'));
    return { commentCount: await req.app.system.ask(ModerationQueryKind, m.tenantId, 'count', { filter: storageFilter(m.tenantId, text, m.groups), text }) };
  }),
  searchRoute('search/suggest', { 'text-search': str(1000) }, async (req, m) => {
    const value = (req.query['text-search'] ?? '').trim();
    return { users: await users(req.app, m, value), pages: await pages(req.app, m, value) };
  }),
];
