import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { checkedFetch } from '../fixtures/openapi.js';

for (const storage of storages()) {
  describe(`request validation on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, { maxBodyBytes: 4096 });
    });
    after(async () => {
      await t.destroy();
    });

    async function usedCredits(): Promise<number> {
      const r = await t.api<{ tenantDailyUsages: { apiCreditsUsed: number }[] }>('GET', '/api/v1/tenant-daily-usage');
      return r.body.tenantDailyUsages.reduce((sum, d) => sum + d.apiCreditsUsed, 0);
    }

    async function domains(): Promise<unknown[]> {
      return (await t.api<{ configurations: unknown[] }>('GET', '/api/v1/domain-configs')).body.configurations;
    }

    const bad: [string, Parameters<TestServer['api']>, number, string][] = [
      ['malformed JSON', ['POST', '/api/v1/domain-configs', { body: '{"domain": "a.example",' }], 400, 'invalid-json'],
      ['a JSON array instead of an object', ['POST', '/api/v1/domain-configs', { body: '[1,2]' }], 400, 'invalid-param'],
      ['a wrong type', ['POST', '/api/v1/domain-configs', { body: { domain: 42 } }], 400, 'invalid-param'],
      ['an unknown field', ['POST', '/api/v1/domain-configs', { body: { domain: 'a.example', colour: 'red' } }], 400, 'unexpected-param'],
      ['an unknown nested field type', ['POST', '/api/v1/domain-configs', { body: { domain: 'a.example', emailHeaders: { x: 1 } } }], 400, 'invalid-param'],
      ['a missing required field', ['POST', '/api/v1/domain-configs', { body: {} }], 400, 'missing-param'],
      ['an empty patch', ['PATCH', '/api/v1/domain-configs/a.example', { body: {} }], 400, 'invalid-param'],
      ['an invalid domain', ['POST', '/api/v1/domain-configs', { body: { domain: 'not a domain!' } }], 400, 'invalid-domain'],
      ['an unknown query parameter', ['GET', '/api/v1/domain-configs', { query: { colour: 'red' } }], 400, 'unexpected-param'],
      ['a query value of the wrong type', ['GET', '/api/v1/tenant-daily-usage', { query: { yearNumber: 'last' } }], 400, 'invalid-param'],
      ['a query value out of range', ['GET', '/api/v1/tenant-daily-usage', { query: { monthNumber: 13 } }], 400, 'invalid-param'],
      ['a repeated scalar query parameter', ['GET', '/api/v1/tenant-daily-usage', { query: { skip: ['1', '2'] } }], 400, 'invalid-param'],
      ['a body where none is taken', ['DELETE', '/api/v1/domain-configs/a.example', { body: { x: 1 } }], 400, 'unexpected-param'],
      ['a non-JSON content type', ['POST', '/api/v1/domain-configs', { body: 'domain=a.example', headers: { 'content-type': 'application/x-www-form-urlencoded' } }], 415, 'unsupported-media-type'],
      ['an oversized body', ['POST', '/api/v1/domain-configs', { body: { domain: 'a.example', emailFromName: 'x'.repeat(5000) } }], 413, 'body-too-large'],
      ['bad percent-encoding in the path', ['GET', '/api/v1/domain-configs/%E0%A4%A', {}], 400, 'invalid-path-encoding'],
      ['an unknown route', ['GET', '/api/v1/nothing-here', {}], 404, 'route-not-found'],
      ['a wrong method', ['PUT', '/api/v1/domain-configs', { body: {} }], 405, 'method-not-allowed'],
    ];

    test('refused requests get a clear code, an honest status, and change nothing', async () => {
      const domainsBefore = await domains();
      const creditsBefore = await usedCredits();
      for (const [name, args, status, code] of bad) {
        const r = await t.api(...args);
        assert.equal(r.status, status, `${name}: status`);
        assert.equal(r.body['status'], 'failed', `${name}: body status`);
        assert.equal(r.body['code'], code, `${name}: code`);
        assert.ok(typeof r.body['reason'] === 'string' && (r.body['reason'] as string).length > 0, `${name}: reason`);
      }
      assert.deepEqual(await domains(), domainsBefore, 'no refused request changed data');
      // The two reads above are the only calls charged since.
      assert.equal(await usedCredits(), creditsBefore + 2, 'no refused request was charged');
    });

    test('405 names the allowed methods', async () => {
      const r = await t.api('PUT', '/api/v1/domain-configs', { body: {} });
      assert.equal(r.headers.get('allow'), 'GET, POST');
    });

    test('an oversized body announced by Content-Length is refused before it is read', async () => {
      const r = await checkedFetch(`${t.url}/api/v1/domain-configs`, {
        method: 'POST',
        headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId, 'content-type': 'application/json' },
        body: JSON.stringify({ domain: 'x'.repeat(10_000) }),
      });
      assert.equal(r.status, 413);
      assert.equal(((await r.json()) as { code: string }).code, 'body-too-large');
    });

    test('a body streamed in chunks without Content-Length is limited too', async () => {
      const chunks = [JSON.stringify({ domain: 'a.example', emailFromName: 'y'.repeat(3000) }).slice(0, 2000), 'z'.repeat(3000)];
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
          controller.close();
        },
      });
      const r = await checkedFetch(`${t.url}/api/v1/domain-configs`, {
        method: 'POST',
        headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      assert.equal(r.status, 413);
    });

    test('replaying the same create is refused as a duplicate and changes nothing', async () => {
      const first = await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'replay.example', emailFromName: 'One' } });
      assert.equal(first.status, 200);
      const again = await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'REPLAY.example', emailFromName: 'Two' } });
      assert.deepEqual([again.status, again.body['code']], [409, 'domain-config-exists']);
      const stored = await t.api<{ configuration: { emailFromName: string } }>('GET', '/api/v1/domain-configs/replay.example');
      assert.equal(stored.body.configuration.emailFromName, 'One');
    });

    test('free-form fields are refused, the same on every storage, when storage could not hold them', async () => {
      const comment = (meta: unknown, urlId = 'storable') => ({
        body: { commenterName: 'A', comment: 'hi', url: 'https://example.com/s', urlId, locale: 'en_us', meta },
      });
      let nested: unknown = 'bottom';
      for (let i = 0; i < 40; i++) nested = { n: nested };
      const refused: [string, unknown, RegExp][] = [
        ['a name with a dot', { 'a.b': 1 }, /"a\.b" in body\.meta/],
        ['a name starting with $', { $where: 'x' }, /"\$where"/],
        ['a nested bad name', { x: { $y: 1 } }, /body\.meta\.x/],
        ['a bad name inside an array', { list: [{ 'c.d': 1 }] }, /body\.meta\.list\[0\]/],
        ['nesting past the limit', nested, /levels deep/],
      ];
      for (const [name, meta, reason] of refused) {
        const r = await t.api('POST', '/api/v1/comments', comment(meta));
        assert.deepEqual([r.status, r.body['code']], [400, 'invalid-param'], name);
        assert.match(r.body['reason'] as string, reason, name);
      }
      const listed = await t.api<{ comments: unknown[] }>('GET', '/api/v1/comments', { query: { urlId: 'storable' } });
      assert.deepEqual(listed.body.comments, [], 'no refused comment was stored');

      const meta = { page: { section: 'news', tags: ['a', 'b'] }, 'with space': true, 'ünïcode': 1 };
      const ok = await t.api<{ comment: { _id: string; meta: unknown } }>('POST', '/api/v1/comments', comment(meta));
      assert.equal(ok.status, 200);
      const read = await t.api<{ comment: { meta: unknown } }>('GET', `/api/v1/comments/${ok.body.comment._id}`);
      assert.deepEqual(read.body.comment.meta, meta);
    });
  });
}
