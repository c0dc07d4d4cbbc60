/**
 * Comment text to `commentHTML`: a small markdown subset plus `[img]path[/img]`.
 *
 * Safety comes from the order of work: the whole text is HTML-escaped first, so nothing the
 * commenter typed can open a tag; the renderer then builds only the allowed tags (b, u, i,
 * strike, pre, span, code, img, a, strong, ul, ol, li, br) itself, from escaped pieces. URLs
 * become attributes only when they parse as http(s) (links may also be mailto), or as a
 * root-relative path for images. Generated tags are parked behind placeholders while later
 * rules run, so no rule can rewrite another's output.
 *
 * Supported: fenced ``` code blocks (pre+code), `inline code`, **bold**, __underline__,
 * *italic* and _italic_, ~~strike~~, [text](url) links, ![alt](url) and [img]url[/img]
 * images, bare http(s) URLs as links, `- ` / `* ` and `1. ` lists, and line breaks.
 */

/** HTML, and whether it has links, code or images. */
export interface Rendered {
  readonly html: string;
  readonly hasLinks: boolean;
  readonly hasCode: boolean;
  readonly hasImages: boolean;
}

/** Tags `commentHTML` may contain, whether rendered or given by the API caller. */
export const ALLOWED_TAGS: ReadonlySet<string> = new Set(['b', 'u', 'i', 'strike', 'pre', 'span', 'code', 'img', 'a', 'strong', 'ul', 'ol', 'li', 'br']);

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", colon: ':', tab: '\t', newline: '\n' };

/** Decodes the entities an attacker could use to hide a URL scheme. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z0-9#]+);?/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return codePoint(parseInt(lower.slice(2), 16), whole);
    if (lower.startsWith('#') && lower !== '#39') return codePoint(parseInt(lower.slice(1), 10), whole);
    return NAMED[lower] ?? whole;
  });
}

function codePoint(n: number, fallback: string): string {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : fallback;
}

/** Where a URL is used: links may be mailto, images may be root-relative. */
export type UrlUse = 'link' | 'image';

/**
 * The URL as it may appear in an attribute (escaped), or undefined when it is not safe.
 * `raw` is the URL as the author wrote it (not escaped).
 */
export function safeUrl(raw: string, use: UrlUse): string | undefined {
  // Browsers ignore control characters and whitespace inside schemes ("java\tscript:").
  const url = raw.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (url === '' || url.length > 2048) return undefined;
  if (use === 'image' && url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return escapeHtml(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const allowed = use === 'link' ? ['http:', 'https:', 'mailto:'] : ['http:', 'https:'];
  if (!allowed.includes(parsed.protocol)) return undefined;
  return escapeHtml(url);
}

const HOLE = '\u0000';

/** Collects generated HTML behind placeholders. */
class Parked {
  readonly #parts: string[] = [];
  park(html: string): string {
    this.#parts.push(html);
    return `${HOLE}${this.#parts.length - 1}${HOLE}`;
  }
  restore(text: string): string {
    let out = text;
    // Parked fragments may contain placeholders of earlier ones (a link around inline code).
    for (let round = 0; round < 4 && out.includes(HOLE); round++) {
      out = out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => this.#parts[Number(i)] ?? '');
    }
    return out;
  }
}

/** Renders comment text to safe HTML. */
export function renderComment(text: string): Rendered {
  const flags = { hasLinks: false, hasCode: false, hasImages: false };
  const parked = new Parked();
  // Placeholders use NUL, which the text must not forge.
  let src = text.replace(/\r\n?/g, '\n').replaceAll(HOLE, '');

  src = src.replace(/```[^\n]*\n?([\s\S]*?)```/g, (_, code: string) => {
    flags.hasCode = true;
    return parked.park(`<pre><code>${escapeHtml(code.replace(/\n$/, ''))}</code></pre>`);
  });
  src = src.replace(/`([^`\n]+)`/g, (_, code: string) => {
    flags.hasCode = true;
    return parked.park(`<code>${escapeHtml(code)}</code>`);
  });
  src = src.replace(/\[img\]([\s\S]*?)\[\/img\]/gi, (whole, url: string) => {
    const safe = safeUrl(url.trim(), 'image');
    if (safe === undefined) return whole;
    flags.hasImages = true;
    return parked.park(`<img src="${safe}" alt="">`);
  });
  src = src.replace(/!\[([^\]\n]*)\]\(([^()\s]+)\)/g, (whole, alt: string, url: string) => {
    const safe = safeUrl(url, 'image');
    if (safe === undefined) return whole;
    flags.hasImages = true;
    return parked.park(`<img src="${safe}" alt="${escapeHtml(alt)}">`);
  });
  src = src.replace(/\[([^\]\n]+)\]\(([^()\s]+)\)/g, (whole, label: string, url: string) => {
    const safe = safeUrl(url, 'link');
    if (safe === undefined) return whole;
    flags.hasLinks = true;
    return parked.park(`<a href="${safe}" rel="nofollow noopener ugc" target="_blank">${inline(escapeHtml(label))}</a>`);
  });
  src = src.replace(/\bhttps?:\/\/[^\s<>"'\u0000]+[^\s<>"'\u0000.,;:!?)\]]/g, (url: string) => {
    const safe = safeUrl(url, 'link');
    if (safe === undefined) return url;
    flags.hasLinks = true;
    return parked.park(`<a href="${safe}" rel="nofollow noopener ugc" target="_blank">${safe}</a>`);
  });

  const html = blocks(escapeHtml(src));
  return { html: parked.restore(html), ...flags };
}

/** Bold, underline, italic and strike on already escaped text. */
function inline(text: string): string {
  return text
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<b>$1</b>')
    .replace(/__(?=\S)([\s\S]*?\S)__/g, '<u>$1</u>')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<strike>$1</strike>')
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1<i>$2</i>')
    .replace(/(^|[^\w])_(?=\S)([^_\n]*?\S)_(?!\w)/g, '$1<i>$2</i>');
}

/** Lists and line breaks, line by line; each run of list items becomes one list. */
function blocks(text: string): string {
  const out: string[] = [];
  let list: 'ul' | 'ol' | undefined;
  let pendingBreak = false;
  const close = () => {
    if (list) out.push(`</${list}>`);
    list = undefined;
  };
  for (const line of text.split('\n')) {
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = bullet ? null : /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      const kind = bullet ? 'ul' : 'ol';
      if (list !== kind) {
        close();
        pendingBreak = false;
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline(item[1]!)}</li>`);
      continue;
    }
    if (list) {
      close();
      pendingBreak = false;
    }
    if (pendingBreak) out.push('<br>');
    out.push(inline(line));
    pendingBreak = true;
  }
  close();
  return out.join('');
}

const ATTRIBUTES: Readonly<Record<string, readonly string[]>> = { a: ['href', 'title'], img: ['src', 'alt', 'width', 'height'], span: ['class'] };
const VOID_TAGS = new Set(['br', 'img']);

/**
 * Cleans `commentHTML` given by the API caller: allowed tags are rebuilt with their allowed
 * attributes only (URLs checked like rendered ones); every other tag, comment or stray angle
 * bracket is escaped and shows as text.
 */
export function sanitizeHtml(html: string): Rendered {
  const flags = { hasLinks: false, hasCode: false, hasImages: false };
  const out: string[] = [];
  const tag = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^<>]*)?)\s*\/?>/g;
  let last = 0;
  for (let m = tag.exec(html); m !== null; m = tag.exec(html)) {
    out.push(escapeText(html.slice(last, m.index)));
    last = tag.lastIndex;
    const name = m[2]!.toLowerCase();
    if (!ALLOWED_TAGS.has(name)) {
      out.push(escapeHtml(m[0]));
      continue;
    }
    if (name === 'a') flags.hasLinks = true;
    if (name === 'code' || name === 'pre') flags.hasCode = true;
    if (m[1] === '/') {
      if (!VOID_TAGS.has(name)) out.push(`</${name}>`);
      continue;
    }
    let attrs = '';
    const allowed = ATTRIBUTES[name] ?? [];
    const attr = /([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g;
    for (let a = attr.exec(m[3] ?? ''); a !== null; a = attr.exec(m[3] ?? '')) {
      const key = a[1]!.toLowerCase();
      if (!allowed.includes(key)) continue;
      const value = decodeEntities(a[2] ?? a[3] ?? a[4] ?? '');
      if (key === 'href' || key === 'src') {
        const safe = safeUrl(value, key === 'href' ? 'link' : 'image');
        if (safe !== undefined) attrs += ` ${key}="${safe}"`;
      } else if ((key === 'width' || key === 'height') && !/^\d{1,5}$/.test(value)) {
        continue;
      } else {
        attrs += ` ${key}="${escapeHtml(value)}"`;
      }
    }
    if (name === 'img') {
      if (!attrs.includes(' src=')) continue;
      flags.hasImages = true;
    }
    if (name === 'a') attrs += ' rel="nofollow noopener ugc" target="_blank"';
    out.push(`<${name}${attrs}>`);
  }
  out.push(escapeText(html.slice(last)));
  return { html: out.join(''), ...flags };
}

/** Text between tags: angle brackets become entities, existing entities stay, NULs go. */
function escapeText(text: string): string {
  return text.replace(/[<>\u0000]/g, (c) => ESCAPES[c] ?? '');
}
