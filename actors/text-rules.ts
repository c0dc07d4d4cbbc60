/**
 * Rules for text that other people's browsers show or follow: names, tags and links. Pure
 * functions, shared by routes (so bad input never reaches an actor) and by the single sign-on
 * payload, which carries the same kinds of fields.
 */

/**
 * C0 and C1 control characters (NUL, escape, line breaks...) and the bidirectional embedding,
 * override and isolate controls, which let a name or tag display as other text than it is.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** True when `text` holds a control or bidirectional-override character. */
export function hasUnsafeCharacters(text: string): boolean {
  return UNSAFE.test(text);
}

/** An absolute `http:` or `https:` URL: what a link may point to (never `javascript:` or `data:`). */
export function isHttpUrl(text: string): boolean {
  if (hasUnsafeCharacters(text) || text.trim() !== text) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** Where an image may come from: an http(s) URL, or a path on the widget's own site (`/avatars/a.png`). */
export function isImageSrc(text: string): boolean {
  if (isHttpUrl(text)) return true;
  return text.startsWith('/') && !text.startsWith('//') && !text.includes('\\') && !hasUnsafeCharacters(text) && text.trim() === text;
}
