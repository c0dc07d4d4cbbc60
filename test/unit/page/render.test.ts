import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ALLOWED_TAGS, renderComment, safeUrl, sanitizeHtml } from '../../../actors/page/render.js';

/** Every tag in the HTML, lower-cased. */
function tags(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase());
}

/** Attributes of every tag: name=value pairs. */
function attributes(html: string): string[] {
  return [...html.matchAll(/<[a-z]+((?:\s+[a-z-]+="[^"]*")*)\s*>/g)].flatMap((m) => [...m[1]!.matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => `${a[1]}=${a[2]}`));
}

const ATTACKS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg/onload=alert(1)>',
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click](java\tscript:alert(1))',
  '[img]javascript:alert(1)[/img]',
  '[img]" onerror="alert(1)[/img]',
  '![x](data:image/svg+xml;base64,PHN2Zz4=)',
  '[a](http://x.com/" onmouseover="alert(1))',
  'http://x.com/"onmouseover="alert(1)',
  '<a href="javascript:alert(1)">x</a>',
  '**<b onclick=alert(1)>x</b>**',
  '`<script>`',
  '```\n<script>alert(1)</script>\n```',
  '<iframe src="http://evil"></iframe>',
  '\u0000 0\u0000 <script>',
];

describe('comment rendering', () => {
  test('markdown subset', () => {
    assert.equal(renderComment('**bold** and *it* and _it_ and ~~gone~~ and __under__').html, '<b>bold</b> and <i>it</i> and <i>it</i> and <strike>gone</strike> and <u>under</u>');
    assert.equal(renderComment('a\nb').html, 'a<br>b');
    assert.equal(renderComment('- one\n- two\nafter').html, '<ul><li>one</li><li>two</li></ul>after');
    assert.equal(renderComment('1. one\n2. two').html, '<ol><li>one</li><li>two</li></ol>');
    const code = renderComment('see `a<b` and\n```js\nx = 1 < 2\n```');
    assert.equal(code.html, 'see <code>a&lt;b</code> and<br><pre><code>x = 1 &lt; 2</code></pre>');
    assert.equal(code.hasCode, true);
    const link = renderComment('[site](https://example.com/a?b=1&c=2) and https://x.org/p.');
    assert.equal(
      link.html,
      '<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener ugc" target="_blank">site</a> and <a href="https://x.org/p" rel="nofollow noopener ugc" target="_blank">https://x.org/p</a>.',
    );
    assert.equal(link.hasLinks, true);
    const img = renderComment('[img]https://cdn.example.com/a.png[/img] ![cat](/img/cat.png)');
    assert.equal(img.html, '<img src="https://cdn.example.com/a.png" alt=""> <img src="/img/cat.png" alt="cat">');
    assert.equal(img.hasImages, true);
    assert.equal(renderComment('snake_case_name and 2*3*4').html, 'snake_case_name and 2*3*4');
  });

  test('plain text is escaped, quotes included', () => {
    assert.equal(renderComment('a < b & "c" \'d\'').html, 'a &lt; b &amp; &quot;c&quot; &#39;d&#39;');
  });

  for (const attack of ATTACKS) {
    test(`XSS attempt is inert: ${JSON.stringify(attack)}`, () => {
      for (const html of [renderComment(attack).html, sanitizeHtml(attack).html]) {
        for (const tag of tags(html)) assert.ok(ALLOWED_TAGS.has(tag), `tag ${tag} in ${html}`);
        for (const attr of attributes(html)) {
          assert.match(attr, /^(href|src|alt|rel|target|title|class|width|height)=/, attr);
          if (attr.startsWith('href=') || attr.startsWith('src=')) assert.match(attr, /^(href|src)=(https?:|mailto:|\/[^/\\])/i, attr);
        }
        assert.doesNotMatch(html, /<[a-z]+[^>]*\son[a-z]+=/i, html);
        assert.doesNotMatch(html, /\u0000/);
      }
    });
  }

  test('safe URLs', () => {
    assert.equal(safeUrl('https://a.b/c"d', 'link'), 'https://a.b/c&quot;d');
    assert.equal(safeUrl('mailto:a@b.c', 'link'), 'mailto:a@b.c');
    assert.equal(safeUrl('mailto:a@b.c', 'image'), undefined);
    assert.equal(safeUrl('//evil.com/x', 'image'), undefined);
    assert.equal(safeUrl('/ok.png', 'image'), '/ok.png');
    assert.equal(safeUrl(' javascript:alert(1)', 'link'), undefined);
    assert.equal(safeUrl('vbscript:x', 'link'), undefined);
  });

  test('given HTML keeps allowed tags and attributes only', () => {
    const out = sanitizeHtml('<p>Hi <b class="x">there</b> <a href="https://a.b" onclick="x()">link</a><img src="https://i/x.png" onerror="y"><span class="spoiler">s</span><br/></p>');
    assert.equal(
      out.html,
      '&lt;p&gt;Hi <b>there</b> <a href="https://a.b" rel="nofollow noopener ugc" target="_blank">link</a><img src="https://i/x.png"><span class="spoiler">s</span><br>&lt;/p&gt;',
    );
    assert.equal(sanitizeHtml('<a href="&#106;avascript:alert(1)">x</a>').html, '<a rel="nofollow noopener ugc" target="_blank">x</a>');
    assert.deepEqual([out.hasLinks, out.hasImages, out.hasCode], [true, true, false]);
  });
});
