/**
 * The tenant's hashtag catalogue (`hashtags:<tenantId>`). Page actors `tell` it the tags their
 * new comments use (`ensure`); it never asks a page.
 */
import { defineKind } from '../../engine/actor.js';
import type { HashTagDoc } from './hashtag-model.js';

/** A tag to create. */
export interface HashTagInput {
  readonly tag: string;
  readonly url?: string | null;
}

/** One result of a bulk create: the tag, or why it was refused. */
export type BulkResult = { readonly hashTag: HashTagDoc } | { readonly error: { readonly code: string; readonly reason: string } };

/** Every message of the hashtag actor. */
export type HashTagProtocol = {
  /** One page (100 tags) ordered by tag. */
  list: { in: { page: number }; out: HashTagDoc[] };
  add: { in: HashTagInput; out: HashTagDoc };
  addBulk: { in: { tags: readonly HashTagInput[] }; out: BulkResult[] };
  /** Renames and/or sets the url of the tag named (any spelling of its key). */
  patch: { in: { tag: string; changes: { tag?: string; url?: string | null } }; out: HashTagDoc };
  remove: { in: { tag: string }; out: null };
  /** Creates the tags that do not exist (automatic creation from comments). */
  ensure: { in: { tags: readonly string[] }; out: null };
};

/** `hashtags:<tenantId>` */
export const HashTagKind = defineKind<HashTagProtocol>('hashtags');
