/**
 * The one-key actions (and their buttons): each is a moderation API call and the change it
 * makes to the comment as the page shows it.
 */
import type { Api } from '../../shared/api.js';
import type { ModComment } from './types.js';

/** An action on one comment. */
export interface Action {
  /** The key that runs it on the focused comment. */
  readonly key: string;
  /** The button's label (a catalog key). */
  readonly label: string;
  /** What is announced once done (a catalog key, `{name}` the author). */
  readonly done: string;
  /** Whether the action applies to the comment as it is (its button is shown). */
  readonly applies: (c: ModComment) => boolean;
  readonly run: (api: Api, base: string, c: ModComment) => Promise<Partial<ModComment>>;
}

const post = (api: Api, base: string, path: string, query: Record<string, string | boolean> = {}) => api.call('POST', `${base}/${path}`, query);

/** The actions, in the order their buttons are shown. */
export const ACTIONS: readonly Action[] = [
  {
    key: 'a',
    label: 'APPROVE',
    done: 'DONE_APPROVED',
    applies: (c) => c.approved !== true && c.isDeleted !== true,
    run: async (api, base, c) => (await post(api, base, `set-comment-approval-status/${c._id}`, { approved: true }), { approved: true, reviewed: true }),
  },
  {
    key: 'u',
    label: 'UNAPPROVE',
    done: 'DONE_UNAPPROVED',
    applies: (c) => c.approved === true && c.isDeleted !== true,
    run: async (api, base, c) => (await post(api, base, `set-comment-approval-status/${c._id}`, { approved: false }), { approved: false, reviewed: true }),
  },
  {
    key: 's',
    label: 'MARK_SPAM',
    done: 'DONE_SPAM',
    applies: (c) => c.isSpam !== true && c.isDeleted !== true,
    run: async (api, base, c) => (await post(api, base, `set-comment-spam-status/${c._id}`, { spam: true }), { isSpam: true, reviewed: true }),
  },
  {
    key: 'n',
    label: 'NOT_SPAM',
    done: 'DONE_NOT_SPAM',
    applies: (c) => c.isSpam === true,
    run: async (api, base, c) => (await post(api, base, `set-comment-spam-status/${c._id}`, { spam: false }), { isSpam: false, reviewed: true, approved: true }),
  },
  {
    key: 'v',
    label: 'MARK_REVIEWED',
    done: 'DONE_REVIEWED',
    applies: (c) => c.reviewed !== true,
    run: async (api, base, c) => (await post(api, base, `set-comment-review-status/${c._id}`, { reviewed: true }), { reviewed: true }),
  },
  {
    key: 'r',
    label: 'REMOVE',
    done: 'DONE_REMOVED',
    applies: (c) => c.isDeleted !== true,
    run: async (api, base, c) => (await post(api, base, `remove-comment/${c._id}`), { isDeleted: true, approved: false }),
  },
  {
    key: 'e',
    label: 'RESTORE',
    done: 'DONE_RESTORED',
    applies: (c) => c.isDeleted === true,
    run: async (api, base, c) => (await post(api, base, `restore-deleted-comment/${c._id}`), { isDeleted: false }),
  },
];

/** The action of a key, if any. */
export function actionOfKey(key: string): Action | undefined {
  return ACTIONS.find((a) => a.key === key);
}

/** The author's name as the page shows it. */
export function authorOf(c: ModComment, anonymous: string): string {
  return c.commenterName || anonymous;
}
