/**
 * Tenant-wide reads (`site:<tenantId>`): what no single page actor can answer. They read the
 * durable documents the page actors write (every acknowledged write is durable, so these reads
 * show every acknowledged change). It never asks a page actor.
 */
import { defineKind } from '../../engine/actor.js';
import type { ListQuery } from '../page/listing.js';
import type { PageDoc } from '../page/page-doc.js';

/** A tenant-wide read of comments. */
export interface SearchRequest {
  readonly query: ListQuery;
  /** `u:`/`a:` key of the reader, to tag their votes. */
  readonly voterKey: string | null;
  readonly blocked: readonly string[];
}

/** Every message of the site actor. */
export type SiteProtocol = {
  /** Page records of the tenant, oldest first: `limit` of them after `skip`, and whether more follow. */
  listPages: { in: { skip: number; limit: number }; out: { pages: PageDoc[]; hasMore: boolean } };
  /**
   * Up to `limit` pages in list order (oldest first, then by id) after `after` (a page's
   * `createdAt` and id), or after the first `skip` when `after` is null: the next part of a
   * list read in parts, each found through the index wherever the list stands.
   */
  pagesAfter: { in: { after: { createdAt: string; id: string } | null; skip: number; limit: number }; out: PageDoc[] };
  /** Comments across all pages (flat), approved and not spam. */
  searchComments: { in: SearchRequest; out: Record<string, unknown>[] };
  /** The id of the tenant's user with this email, if any. */
  userIdByEmail: { in: { email: string }; out: string | null };
};

/** `site:<tenantId>` */
export const SiteKind = defineKind<SiteProtocol>('site');
