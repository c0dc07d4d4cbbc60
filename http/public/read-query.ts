/**
 * The parameters of `GET /comments/{tenantId}` (GetCommentsPublic): their schema, and the
 * listing query they resolve to with the page's settings. Parameters that do not change the
 * comments (`includei10n`, `locale`, `useFullTranslationIds`, `modules`, `isCrawler`,
 * `customConfigStr`) are accepted and documented in docs/public-api.md.
 */
import { hashTagKey } from '../../actors/hashtag/hashtag-model.js';
import { DEFAULT_PAGE_SIZE, MAX_LIST_LIMIT, SORT_DIRECTIONS, type SortDirection } from '../../actors/page/listing.js';
import type { PublicListQuery } from '../../actors/page/public-listing.js';
import type { Settings } from '../../actors/tenant/widget-config.js';
import { ApiError } from '../../engine/errors.js';
import type { Schema } from '../route.js';
import { text, URL_ID } from '../routes/page-context.js';

/** GetCommentsPublic's query, as validated. */
export interface PublicReadQuery {
  urlId: string;
  page?: number;
  direction?: SortDirection;
  sso?: string;
  sessionId?: string;
  skip?: number;
  skipChildren?: number;
  limit?: number;
  limitChildren?: number;
  countChildren?: boolean;
  fetchPageForCommentId?: string;
  includeConfig?: boolean;
  countAll?: boolean;
  includei10n?: boolean;
  locale?: string;
  modules?: string;
  isCrawler?: boolean;
  includeNotificationCount?: boolean;
  asTree?: boolean;
  maxTreeDepth?: number;
  useFullTranslationIds?: boolean;
  parentId?: string;
  searchText?: string;
  hashTags?: string[];
  userId?: string;
  customConfigStr?: string;
  afterCommentId?: string;
  beforeCommentId?: string;
}

const int = (max: number): Schema => ({ type: 'integer', minimum: 0, maximum: max });
const bool: Schema = { type: 'boolean' };
const id: Schema = text(128);

/** The query schema of GetCommentsPublic (plus `sessionId`, the cookie-less session). */
export const PUBLIC_READ_QUERY: Schema = {
  type: 'object',
  properties: {
    urlId: URL_ID,
    page: int(1_000_000),
    direction: { type: 'string', enum: Object.values(SORT_DIRECTIONS) },
    sso: text(16_384),
    sessionId: text(64),
    skip: int(100_000_000),
    skipChildren: int(100_000_000),
    limit: int(MAX_LIST_LIMIT),
    limitChildren: int(MAX_LIST_LIMIT),
    countChildren: bool,
    fetchPageForCommentId: id,
    includeConfig: bool,
    countAll: bool,
    includei10n: bool,
    locale: text(100),
    modules: text(1000),
    isCrawler: bool,
    includeNotificationCount: bool,
    asTree: bool,
    maxTreeDepth: int(1000),
    useFullTranslationIds: bool,
    parentId: id,
    searchText: text(200),
    hashTags: { type: 'array', items: text(100, 1), maxItems: 20 },
    userId: text(256),
    customConfigStr: text(16_384),
    afterCommentId: id,
    beforeCommentId: id,
  },
  required: ['urlId'],
};

/** The listing query of a read, every default resolved from the page's settings. */
export function resolvePublicQuery(q: PublicReadQuery, settings: Partial<Pick<Settings, 'pageSize' | 'defaultSortDirection'>>): PublicListQuery {
  if (q.page !== undefined && (q.skip !== undefined || q.limit !== undefined)) {
    throw new ApiError('invalid-param', 'Use either precalculated paging (page) or flexible paging (skip and limit), not both.');
  }
  if (q.afterCommentId && q.beforeCommentId) throw new ApiError('invalid-param', 'Give afterCommentId or beforeCommentId, not both.');
  const size = Math.min(Math.max(settings.pageSize ?? DEFAULT_PAGE_SIZE, 1), MAX_LIST_LIMIT);
  const search = q.searchText?.trim().toLowerCase();
  return {
    direction: q.direction ?? settings.defaultSortDirection ?? SORT_DIRECTIONS.mostRelevant,
    page: q.page ?? 0,
    skip: q.skip ?? null,
    limit: q.limit ?? size,
    asTree: q.asTree === true,
    maxTreeDepth: q.maxTreeDepth ?? null,
    limitChildren: q.limitChildren ?? null,
    skipChildren: q.skipChildren ?? 0,
    countChildren: q.countChildren === true,
    parentId: q.parentId && q.parentId !== 'null' ? q.parentId : null,
    fetchPageForCommentId: q.fetchPageForCommentId || null,
    afterCommentId: q.afterCommentId || null,
    beforeCommentId: q.beforeCommentId || null,
    countAll: q.countAll === true,
    hashTagKeys: (q.hashTags ?? []).map(hashTagKey).filter((k) => k !== ''),
    searchText: search ? search : null,
  };
}

/** What an anonymous read of one query string resolves to, for one settings object. */
export interface ReadyRead {
  /** The key of the page actor's kept answer. */
  readonly key: string;
  readonly query: PublicListQuery;
  /** The answer's fields after the page's own (`user`, live ids, configuration). */
  readonly tail: string;
}

/**
 * Resolved reads by query string, per settings object: a settings object belongs to one page
 * and is replaced when the settings change, so a remembered read is never stale.
 */
const ready = new WeakMap<Settings, Map<string, ReadyRead>>();
const READS_PER_SETTINGS = 256;

/** The anonymous read of `rawQuery` under `settings`, if it was resolved already. */
export function knownRead(settings: Settings, rawQuery: string): ReadyRead | undefined {
  return ready.get(settings)?.get(rawQuery);
}

/** The anonymous read of `rawQuery` under `settings`, resolved once and remembered. */
export function readyRead(settings: Settings, rawQuery: string, make: () => ReadyRead): ReadyRead {
  let reads = ready.get(settings);
  if (reads === undefined) ready.set(settings, (reads = new Map()));
  let read = reads.get(rawQuery);
  if (read === undefined) {
    read = make();
    if (reads.size >= READS_PER_SETTINGS) reads.clear();
    reads.set(rawQuery, read);
  }
  return read;
}
