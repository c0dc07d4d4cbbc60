/**
 * What storage cannot hold exactly is refused at the door, on every storage: text that is not
 * well-formed Unicode, numbers that are not numbers, free-form fields over their bounds, objects
 * the embedded encoder cannot encode, links that are not http(s), names with control or
 * bidirectional-override characters. And valid text of every kind comes back byte for byte,
 * also after a restart.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { type Comment, listComments, outcome, postComment } from './page-helpers.js';

/** Text that exercises UTF-8 and UTF-16 both: astral characters, combining marks, right-to-left text. */
const VALID_TEXTS = [
  'emoji 👩‍👩‍👧‍👦 and 𝄞 (astral)',
  'e\u0301 combining: Zalgo z\u0351\u0352\u0353',
  'עברית ومعها العربية',
  'CJK 中文 日本語 한국어',
  '\ufffd is a legitimate character',
];

function ssoParam(secret: string, user: Record<string, unknown>): string {
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const timestamp = Date.now();
  const verificationHash = createHmac('sha256', secret).update(`${timestamp}${data}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64: data, verificationHash, timestamp });
}

for (const storage of storages()) {
  describe(`the input door on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    const comment = (fields: Record<string, unknown>) =>
      t.api('POST', '/api/v1/comments', { body: { commenterName: 'Ann', comment: 'Hello', url: 'https://example.com/d', urlId: '/door', locale: 'en_us', ...fields } });

    test('lone surrogates are refused wherever text enters; nothing is stored', async () => {
      for (const fields of [{ urlId: '/x\ud800' }, { comment: 'a\udc00b' }, { commenterName: 'A\ud800' }, { meta: { 'k\ud800': 1 } }, { meta: { k: ['\udfff'] } }]) {
        assert.deepEqual(outcome(await comment(fields)), [400, 'invalid-unicode'], JSON.stringify(fields));
      }
      // Raw bytes that are not UTF-8.
      const raw = await t.api('POST', '/api/v1/comments', { body: '{"urlId":"/\xff"}'.replace('\xff', '\udcff') });
      assert.equal(raw.status, 400);
      const bytes = await checkedFetch(`${t.url}/api/v1/comments`, {
        method: 'POST',
        headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId, 'content-type': 'application/json' },
        body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      });
      assert.equal(bytes.status, 400);
      assert.equal(((await bytes.json()) as { code: string }).code, 'invalid-unicode');
      // In the single sign-on payload, both its JSON and the signed user data.
      const react = (sso: string) => t.api('POST', `/page-reacts/v1/likes/${t.tenant.tenantId}`, { auth: 'none', query: { urlId: '/door', sso } });
      assert.deepEqual(outcome(await react(JSON.stringify({ username: 'a\ud800', email: 'a@example.com' }))), [400, 'invalid-unicode']);
      assert.deepEqual(outcome(await react(ssoParam(t.tenant.apiSecret, { id: 'u1', username: 'x\udbff' }))), [400, 'invalid-unicode']);
      // Percent-decoding never yields a lone surrogate: the encoded bytes are not UTF-8.
      const path = await t.api('GET', '/api/v1/comments', { query: { urlId: '/x' }, headers: {} });
      assert.equal(path.status, 200);
      const encoded = await checkedFetch(`${t.url}/api/v1/comments?urlId=%2Fx%ED%A0%80`, { headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId } });
      assert.equal(encoded.status, 400);
      assert.deepEqual(await listComments(t, { urlId: '/door' }), []);
      // A legitimate U+FFFD urlId is unaffected by anything refused above.
      await postComment(t, '/x\ufffd');
    });

    test('valid text of every kind comes back byte for byte, also after a restart', async () => {
      const urlId = `/text-${VALID_TEXTS[0]}`;
      // Cut by code point: cutting a UTF-16 string can split a surrogate pair.
      const head = (text: string, n: number) => [...text].slice(0, n).join('');
      const created: Comment[] = [];
      for (const text of VALID_TEXTS) created.push(await postComment(t, urlId, { comment: text, commenterName: head(text, 40), meta: { [head(text, 10)]: text } }));
      const check = async (server: TestServer) => {
        const listed = await listComments(server, { urlId, direction: 'OF' });
        assert.deepEqual(
          listed.map((c) => [c.comment, c['commenterName'], c['meta']]),
          VALID_TEXTS.map((text) => [text, head(text, 40), { [head(text, 10)]: text }]),
        );
        for (const c of created) {
          const one = await server.api<{ comment: { urlId: string; comment: string } }>('GET', `/api/v1/comments/${c._id}`);
          assert.equal(one.body.comment.urlId, urlId);
          assert.equal(Buffer.from(one.body.comment.comment).toString('hex'), Buffer.from(c.comment).toString('hex'));
        }
      };
      await check(t);
      t = await t.restart();
      await check(t);
    });

    test('numbers in queries are decimal, finite and safe; in bodies, finite', async () => {
      for (const limit of ['Infinity', '1e309', '1e3', '0x10', '1.0', '-0x1', '99999999999999999', 'NaN', ' 5']) {
        const r = await t.api('GET', '/api/v1/comments', { query: { urlId: '/door', limit } });
        assert.deepEqual(outcome(r), [400, 'invalid-param'], limit);
      }
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/tenant-daily-usage', { query: { yearNumber: '1e309' } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/comments', { query: { fromDate: '1e309' } })), [400, 'invalid-param']);
      // Beyond what a JavaScript Date holds: a 400, never a 500.
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/comments', { query: { fromDate: '8640000000000001' } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/comments', { query: { toDate: '9007199254740991' } })), [400, 'invalid-param']);
      assert.equal((await t.api('GET', '/api/v1/comments', { query: { fromDate: '8640000000000000' } })).status, 200);
      assert.equal((await t.api('GET', '/api/v1/comments', { query: { urlId: '/door', limit: '007' } })).status, 200);
      const infinite = await t.api('POST', '/api/v1/comments', {
        body: '{"commenterName":"A","comment":"x","url":"https://example.com/d","urlId":"/door","locale":"en","localDateHours":1e400}',
      });
      assert.deepEqual(outcome(infinite), [400, 'invalid-param']);
      const huge = await comment({ localDateHours: 2 ** 60 });
      assert.deepEqual(outcome(huge), [400, 'invalid-param']);
    });

    test('free-form fields are bounded; objects storage cannot encode are a 4xx, not a 503', async () => {
      const many: Record<string, number> = {};
      for (let i = 0; i < 70_000; i++) many[`k${i}`] = 1;
      assert.deepEqual(outcome(await comment({ meta: many })), [400, 'field-too-large']);
      assert.deepEqual(outcome(await comment({ meta: { big: 'x'.repeat(20_000) } })), [400, 'field-too-large']);
      const nested: Record<string, unknown> = {};
      for (let i = 0; i < 300; i++) nested[`k${i}`] = { a: 1 };
      assert.deepEqual(outcome(await comment({ meta: nested })), [400, 'field-too-large']);
      // Arrays directly inside arrays: MongoDB-compatible servers (FerretDB) cannot store them.
      assert.deepEqual(outcome(await comment({ meta: { a: [[1], []] } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await comment({ meta: { a: [{ b: [[1]] }] } })), [400, 'invalid-param']);
      const translations: Record<string, string> = {};
      for (let i = 0; i < 70_000; i++) translations[`t${i}`] = 'x';
      const config = await t.api('PUT', '/api/v1/widget-config', { body: { translations } });
      assert.deepEqual(outcome(config), [400, 'field-too-large']);
      const long = await t.api('PUT', '/api/v1/widget-config', { body: { customCSS: 'x'.repeat(200_000) } });
      assert.deepEqual(outcome(long), [400, 'invalid-param']);
      // Within bounds, free-form fields are kept as sent.
      const ok = await comment({ meta: { a: [1, 'two', { three: true }] } });
      assert.equal(ok.status, 200);
      const good = await t.api('PUT', '/api/v1/widget-config', { body: { translations: { hello: 'bonjour' } } });
      assert.equal(good.status, 200);
    });

    test('links are http(s) only; images may also be paths on the site', async () => {
      for (const fields of [
        { commenterLink: 'javascript:alert(1)' },
        { commenterLink: 'data:text/html,<script>1</script>' },
        { avatarSrc: 'javascript:alert(1)' },
        { avatarSrc: '//evil.example/a.png' },
        { url: 'javascript:alert(1)' },
        { url: 'ftp://example.com/' },
        { hashTags: [{ tag: 'news', url: 'vbscript:x', retain: true }] },
      ]) {
        assert.deepEqual(outcome(await comment(fields)), [400, 'invalid-url'], JSON.stringify(fields));
      }
      assert.equal((await comment({ commenterLink: 'https://ann.example/', avatarSrc: '/avatars/ann.png' })).status, 200);
      const page = await t.api('POST', '/api/v1/pages', { body: { urlId: '/link-page', url: 'javascript:x', title: 'T' } });
      assert.deepEqual(outcome(page), [400, 'invalid-url']);
      const tag = await t.api('POST', '/api/v1/hash-tags', { body: { tag: 'linked', url: 'data:,x' } });
      assert.deepEqual(outcome(tag), [400, 'invalid-url']);
      const domain = await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'link.example', logoSrc: 'javascript:x' } });
      assert.deepEqual(outcome(domain), [400, 'invalid-url']);
      const sso = ssoParam(t.tenant.apiSecret, { id: 'linker', username: 'linker', avatar: 'javascript:alert(1)' });
      const react = await t.api('POST', `/page-reacts/v1/likes/${t.tenant.tenantId}`, { auth: 'none', query: { urlId: '/door', sso } });
      assert.deepEqual(outcome(react), [400, 'invalid-url']);
    });

    test('names and hashtags refuse control and bidirectional-override characters', async () => {
      assert.deepEqual(outcome(await comment({ commenterName: 'Ann\u0000' })), [400, 'invalid-name']);
      assert.deepEqual(outcome(await comment({ commenterName: 'Ann\u202eevil' })), [400, 'invalid-name']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/hash-tags', { body: { tag: 'a\u0007b' } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/hash-tags', { body: { tag: 'a\u2066b' } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await comment({ hashTags: [{ tag: 'x\u0000', retain: true }] })), [400, 'invalid-param']);
      const sso = ssoParam(t.tenant.apiSecret, { id: 'bidi', username: 'ok', displayName: 'x\u202ey' });
      const react = await t.api('POST', `/page-reacts/v1/likes/${t.tenant.tenantId}`, { auth: 'none', query: { urlId: '/door', sso } });
      assert.deepEqual(outcome(react), [401, 'invalid-sso']);
    });

    test('credentials are never echoed in a refusal', async () => {
      const secret = 'top-secret-key-%zz';
      const r = await checkedFetch(`${t.url}/api/v1/comments?tenantId=${t.tenant.tenantId}&API_KEY=${secret}`);
      const text = await r.text();
      assert.equal(r.status, 400);
      assert.ok(!text.includes('top-secret'), text);
    });
  });
}
