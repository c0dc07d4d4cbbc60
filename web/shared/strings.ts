/** The widget's interface strings: the server's catalog, overridden by the embed's `translations`. */

/** Strings by key. */
export type Strings = Readonly<Record<string, string>>;

/** Used until the server's strings arrive (and if they never do). */
export const FALLBACK: Strings = {
  LOCALE_DIRECTION: 'ltr',
  COMMENTS_TITLE: 'Comments',
  WRITE_A_COMMENT: 'Write a comment…',
  WRITE_A_REPLY: 'Write a reply…',
  SUBMIT_COMMENT: 'Post',
  SUBMIT_REPLY: 'Reply',
  CANCEL: 'Cancel',
  REPLY: 'Reply',
  EDIT: 'Edit',
  DELETE: 'Delete',
  SAVE: 'Save',
  FLAG: 'Report',
  UNFLAG: 'Withdraw report',
  BLOCK_USER: 'Block this user',
  UNBLOCK_USER: 'Unblock this user',
  YOUR_NAME: 'Your name',
  YOUR_EMAIL: 'Your email',
  SORT_MOST_RELEVANT: 'Most relevant',
  SORT_NEWEST_FIRST: 'Newest first',
  SORT_OLDEST_FIRST: 'Oldest first',
  LOAD_MORE: 'Show more comments',
  SHOW_NEW_COMMENTS: 'Show {count} new comments',
  AWAITING_APPROVAL: 'Awaiting approval',
  DELETED_COMMENT: 'This comment was deleted.',
  THREAD_CLOSED: 'This thread is closed to new comments.',
  JUST_NOW: 'just now',
  MINUTES_AGO: '{count} min ago',
  HOURS_AGO: '{count} h ago',
  DAYS_AGO: '{count} d ago',
  LOG_IN: 'Log in',
  LOG_OUT: 'Log out',
  NO_COMMENTS_YET: 'No comments yet. Be the first!',
  COMMENT_TOO_LONG: 'The comment is longer than {max} characters.',
  GENERIC_ERROR: 'Something went wrong. Please try again.',
  RATE_LIMITED: 'You are doing that too often. Please wait a moment.',
  // Keys the server's catalog does not have yet: English until it does.
  VOTE_UP: 'Vote up',
  VOTE_DOWN: 'Vote down',
  SORT_BY: 'Sort by',
  VOTES: '{count} votes',
  REPLY_TO: 'Reply to {name}',
  EDIT_COMMENT: 'Edit your comment',
  COMMENT_BY: 'Comment by {name}',
  RECONNECTING: 'Reconnecting…',
  REPORTED: 'Reported',
  NOTIFICATIONS: 'Notifications',
  NO_NOTIFICATIONS: 'You have no notifications.',
  MARK_READ: 'Mark as read',
  SUBSCRIBE_PAGE: 'Notify me of new comments on this page',
  UNSUBSCRIBE_PAGE: 'Stop notifying me about this page',
  NOTIFICATION_REPLY: '{name} replied to your comment',
  VIEWING_NOW: '{count} viewing',
  ONLINE_NOW: 'Online now',
  ANONYMOUS_READERS: '{count} anonymous readers',
  PRIVATE_USER: 'Private user',
  PIN: 'Pin',
  UNPIN: 'Unpin',
  LOCK: 'Lock',
  UNLOCK: 'Unlock',
  PINNED: 'Pinned',
  FORMATTING: 'Formatting',
  BOLD: 'Bold',
  ITALIC: 'Italic',
  CODE: 'Code',
  LINK: 'Link',
  PREVIEW: 'Preview',
  LOCKED: 'Locked',
};

/** The string for `key` with `{name}` placeholders filled. */
export function format(strings: Strings, key: string, values: Record<string, string | number> = {}): string {
  const text = strings[key] ?? FALLBACK[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The browser's locale in the server's form (`de_de`). */
export function browserLocale(): string {
  return (navigator.language || 'en').toLowerCase().replace('-', '_');
}
