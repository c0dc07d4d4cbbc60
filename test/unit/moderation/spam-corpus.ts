/**
 * A labelled set of comments for measuring the spam classifier: spam written the way spam is
 * (links to shops, repeated keywords, shouting, money) and ordinary comments on articles,
 * drawn from a seeded generator so every run measures the same set.
 */

/** A small deterministic generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

const PRODUCTS = ['replica watches', 'cheap pills', 'crypto signals', 'casino bonus', 'weight loss tea', 'seo backlinks', 'loan approval', 'followers', 'essay writing', 'vpn deals'];
const SHOPS = ['best-deals.xyz', 'cheap-meds.top', 'win-big.casino', 'crypto-moon.io', 'fastloans.biz', 'getfollowers.click', 'essays4u.shop', 'megasale.store'];
const PITCH = ['Buy now', 'Limited offer', 'Click here', 'Visit my site', 'Earn money from home', 'Best price guaranteed', 'Order today', 'Huge discount'];
const TOPICS = ['the article', 'this post', 'your argument', 'the second chart', 'the conclusion', 'the interview', 'the data', 'this recipe', 'the review', 'the new policy'];
const OPINIONS = ['I agree with', 'I am not sure about', 'Thanks for writing', 'I really enjoyed', 'I disagree with', 'Great points in', 'I learned a lot from', 'Interesting take on'];
const DETAILS = [
  'my experience was different though',
  'it reminded me of a trip last summer',
  'could you share the source for the numbers',
  'the part about the city council was the best',
  'my kids loved it when we tried it',
  'I wonder how this compares with last year',
  'the author makes a fair case',
  'I would add that the costs matter too',
  'we had the same problem at work',
  'looking forward to the follow-up',
];
const READER_MONEY = ['Where can I buy the book? The price seems high.', 'Is the discount still on? I missed the offer.', 'I would pay $20 for the print edition.', 'Click here does not work on my phone.', 'Free shipping would be nice now and then.'];
const REFERENCES = ['wikipedia.org', 'github.com', 'nytimes.com', 'arxiv.org', 'bbc.co.uk'];

/** One spam comment. */
export function spamComment(r: () => number): string {
  const product = pick(r, PRODUCTS);
  const shop = pick(r, SHOPS);
  const style = Math.floor(r() * 6);
  // Spam that reads like a comment: an opinion, then the pitch, sometimes with no link at all.
  if (style === 4) return `${pick(r, OPINIONS)} ${pick(r, TOPICS)}. ${pick(r, PITCH)}, ${product} at www.${shop}`;
  if (style === 5) return `${pick(r, OPINIONS)} ${pick(r, TOPICS)}, ${pick(r, DETAILS)}. ${pick(r, PITCH).toLowerCase()} for ${product}`;
  if (style === 0) return `${pick(r, PITCH)}! ${product} ${product} ${product} ${product} at https://${shop}/${product.replace(/ /g, '-')}`;
  if (style === 1) return `${pick(r, PITCH).toUpperCase()} ${product.toUpperCase()} 90% OFF https://${shop} https://www.${shop}/deal`;
  if (style === 2) return `Nice post. ${pick(r, PITCH)} for ${product}, only $${Math.floor(r() * 90) + 9}: www.${shop}`;
  return `${product} ${pick(r, PITCH).toLowerCase()} ${product} best ${product} cheap ${product} https://${shop}/?ref=${Math.floor(r() * 1e6)}`;
}

/** One ordinary comment. */
export function hamComment(r: () => number): string {
  const base = `${pick(r, OPINIONS)} ${pick(r, TOPICS)}, ${pick(r, DETAILS)}.`;
  const more = r() < 0.5 ? ` Also, ${pick(r, DETAILS)}.` : '';
  const link = r() < 0.15 ? ` See https://${pick(r, REFERENCES)}/page` : '';
  // Ordinary readers talk about prices and offers too.
  const money = r() < 0.15 ? ` ${pick(r, READER_MONEY)}` : '';
  return base + more + link + money;
}

/** `n` labelled comments, about a third of them spam. */
export function labelled(seed: number, n: number): { text: string; spam: boolean }[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const spam = r() < 0.35;
    return { text: spam ? spamComment(r) : hamComment(r), spam };
  });
}
