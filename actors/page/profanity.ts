/**
 * Profanity masking (`enableProfanityFilter`): each listed word, matched as a whole word
 * ignoring case and with common endings (s, es, ed, er, ers, ing, y, ty, ting), is replaced by as many
 * `*` as it has characters. The list is deliberately short and documented in docs/comments.md;
 * it is a courtesy filter, not moderation.
 */
export const PROFANITY_WORDS: readonly string[] = [
  'arse',
  'arsehole',
  'asshole',
  'bastard',
  'bitch',
  'bollocks',
  'bullshit',
  'cock',
  'crap',
  'cunt',
  'damn',
  'dick',
  'dickhead',
  'fuck',
  'fucker',
  'motherfucker',
  'piss',
  'prick',
  'shit',
  'slut',
  'twat',
  'wanker',
  'whore',
];

const PATTERN = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${PROFANITY_WORDS.join('|')})(?:s|es|ed|er|ers|ing|y|ty|ting)?(?![\\p{L}\\p{N}_])`, 'giu');

/** The text with listed words masked. */
export function maskProfanity(text: string): string {
  return text.replace(PATTERN, (word) => '*'.repeat([...word].length));
}
