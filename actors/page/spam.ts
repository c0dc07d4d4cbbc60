/**
 * Spam checks for new comments (`doSpamCheck`).
 *
 * The tenant's `spamRules` are tried in order; a rule matches when the comment contains its
 * `commentContains` (ignoring case), or always when it has none. The first matching rule with
 * `spam` or `not-spam` decides; `ignore-repeat` on a matching rule turns off the repeat check.
 * Undecided comments are spam when they repeat, word for word (ignoring case and spacing), a
 * comment the same author already has on the page.
 */
import type { SpamRule } from '../tenant/widget-config.js';

/** The outcome of the spam checks of one comment. */
export interface SpamVerdict {
  readonly isSpam: boolean;
  /** A `not-spam` rule matched: the comment is marked `permNotSpam`. */
  readonly permNotSpam: boolean;
}

/** Text as the repeat check compares it. */
export function repeatKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Judges one new comment; `isRepeat` says whether its author already posted the same text here. */
export function judgeSpam(text: string, rules: readonly SpamRule[], isRepeat: boolean): SpamVerdict {
  const lower = text.toLowerCase();
  let checkRepeat = true;
  for (const rule of rules) {
    const needle = rule.commentContains;
    if (needle !== undefined && needle !== '' && !lower.includes(needle.toLowerCase())) continue;
    if (rule.actions.includes('ignore-repeat')) checkRepeat = false;
    if (rule.actions.includes('not-spam')) return { isSpam: false, permNotSpam: true };
    if (rule.actions.includes('spam')) return { isSpam: true, permNotSpam: false };
  }
  return { isSpam: checkRepeat && isRepeat, permNotSpam: false };
}
