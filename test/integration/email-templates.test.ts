import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertWireShape } from '../fixtures/openapi.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

interface Template {
  _id: string;
  emailTemplateId: string;
  domain: string | null;
  ejs: string;
  displayName: string;
  updatedAt: string | null;
}

const MENTION = 'comment-user-mention';

for (const storage of storages()) {
  describe(`email templates on ${storage}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(storage);
      for (const domain of ['blog.example.com', 'shop.example.com']) {
        assert.equal((await server.api('POST', '/api/v1/domain-configs', { body: { domain } })).status, 200);
      }
    });
    after(() => server.destroy());

    const create = (body: Record<string, unknown>) => server.api<{ emailTemplate: Template; code?: string; reason?: string; secondaryCode?: string }>('POST', '/api/v1/email-templates', { body });
    const list = async () => (await server.api<{ emailTemplates: Template[] }>('GET', '/api/v1/email-templates')).body.emailTemplates;

    test('definitions list every emailTemplateId with its default template, translations and test data', async () => {
      const res = await server.api<{ definitions: { emailTemplateId: string; defaultEJS: string; defaultTranslationsByLocale: Record<string, Record<string, string>> }[] }>('GET', '/api/v1/email-templates/definitions');
      assert.equal(res.status, 200);
      assertWireShape('GetEmailTemplateDefinitions', res.body);
      const ids = res.body.definitions.map((d) => d.emailTemplateId);
      for (const id of ['commenter-verify-post', 'commenter-verify-vote', MENTION, 'tenant-comment-digest']) assert.ok(ids.includes(id), id);
      assert.ok(res.body.definitions.every((d) => d.defaultEJS.length > 0 && d.defaultTranslationsByLocale['en_us']?.['SUBJECT']));
    });

    test('create, read, list, update, delete; a domain-specific template beside the wildcard', async () => {
      const wildcard = await create({ emailTemplateId: MENTION, displayName: 'All sites', ejs: 'Hi <%= username %>, <%= comment.commenterName %> mentioned you.' });
      assert.equal(wildcard.status, 200, JSON.stringify(wildcard.body));
      assertWireShape('CreateEmailTemplate', wildcard.body);
      assert.equal(wildcard.body.emailTemplate.domain, null);
      const blog = await create({ emailTemplateId: MENTION, displayName: 'Blog', ejs: 'Blog: <%= username %>', domain: 'Blog.Example.com' });
      assert.equal(blog.status, 200, JSON.stringify(blog.body));
      assert.equal(blog.body.emailTemplate.domain, 'blog.example.com');

      const id = blog.body.emailTemplate._id;
      const got = await server.api<{ emailTemplate: Template }>('GET', `/api/v1/email-templates/${id}`);
      assertWireShape('GetEmailTemplate', got.body);
      assert.equal(got.body.emailTemplate.ejs, 'Blog: <%= username %>');
      const all = await server.api('GET', '/api/v1/email-templates', { query: { page: 0 } });
      assertWireShape('GetEmailTemplates', all.body);
      assert.deepEqual((await list()).map((t) => t._id), [wildcard.body.emailTemplate._id, id], 'oldest first');

      const patched = await server.api<{ emailTemplate: Template }>('PATCH', `/api/v1/email-templates/${id}`, { body: { displayName: 'Blog mentions' } });
      assert.equal(patched.status, 200);
      assertWireShape('UpdateEmailTemplate', patched.body);
      assert.equal(patched.body.emailTemplate.displayName, 'Blog mentions');
      assert.equal(patched.body.emailTemplate.ejs, 'Blog: <%= username %>', 'only the changed attribute changes');
      assert.equal(typeof patched.body.emailTemplate.updatedAt, 'string');

      const deleted = await server.api('DELETE', `/api/v1/email-templates/${id}`);
      assert.equal(deleted.status, 200);
      assertWireShape('DeleteEmailTemplate', deleted.body);
      assert.equal((await server.api<{ code: string }>('GET', `/api/v1/email-templates/${id}`)).body.code, 'not-found');
      assert.equal((await server.api('DELETE', `/api/v1/email-templates/${wildcard.body.emailTemplate._id}`)).status, 200);
    });

    test('one template per (emailTemplateId, domain): null and * are one wildcard; a domain must be configured', async () => {
      const first = await create({ emailTemplateId: MENTION, displayName: 'a', ejs: 'a', domain: '*' });
      assert.equal(first.status, 200);
      const again = await create({ emailTemplateId: MENTION, displayName: 'b', ejs: 'b' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'duplicate');
      const shop = await create({ emailTemplateId: MENTION, displayName: 'shop', ejs: 'shop', domain: 'shop.example.com' });
      assert.equal(shop.status, 200);
      const moved = await server.api<{ code: string }>('PATCH', `/api/v1/email-templates/${shop.body.emailTemplate._id}`, { body: { domain: '*' } });
      assert.equal(moved.status, 409, 'an update may not take a slot either');

      const unknown = await create({ emailTemplateId: MENTION, displayName: 'c', ejs: 'c', domain: 'elsewhere.org' });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.code, 'domain-invalid');
      assert.match(unknown.body.reason!, /blog\.example\.com, shop\.example\.com/);
      const badId = await create({ emailTemplateId: 'no-such-email', displayName: 'd', ejs: 'd' });
      assert.equal(badId.body.code, 'invalid-email-template-id');
      const unexpected = await create({ emailTemplateId: MENTION, displayName: 'e', ejs: 'e', color: 'red' });
      assert.equal(unexpected.body.code, 'unexpected-param');
      for (const t of await list()) await server.api('DELETE', `/api/v1/email-templates/${t._id}`);
    });

    test('bad templates are refused with a clear code, nothing is stored, and the server keeps serving', async () => {
      const cases: [string, string, string][] = [
        ['syntax error', 'Hello\n<% if (username { %>', 'syntax-error'],
        ['reads process.env', '<%= process.env.HOME %>', 'render-error'],
        ['endless loop', '<% while (true) {} %>', 'timeout'],
        ['endless promise chain', '<% (function next() { Promise.resolve().then(next); })() %>', 'timeout'],
        ['huge allocation', "<%= 'x'.repeat(1e8).split('').length %>", 'memory-limit'],
      ];
      for (const [what, ejs, secondaryCode] of cases) {
        // The runaway render goes on in the render pool while other routes are served: calls
        // made one after another keep being answered before the render's refusal comes back.
        let answered = false;
        const pending = create({ emailTemplateId: MENTION, displayName: what, ejs }).finally(() => {
          answered = true;
        });
        let servedMeanwhile = 0;
        while (!answered) {
          const other = await server.api('GET', '/api/v1/me');
          assert.equal(other.status, 200, `${what}: other routes served`);
          if (!answered) servedMeanwhile++;
        }
        if (secondaryCode === 'timeout') assert.ok(servedMeanwhile > 0, `${what}: no other call was answered during the render`);
        const res = await pending;
        assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'does-not-render', what);
        assert.equal(res.body.secondaryCode, secondaryCode, `${what}: ${res.body.reason}`);
      }
      const syntax = await create({ emailTemplateId: MENTION, displayName: 'x', ejs: 'Hello\n<% if (username { %>' });
      assert.match(syntax.body.reason!, /line 2/);
      assert.deepEqual(await list(), [], 'nothing stored');
      assert.equal((await server.api('GET', '/healthz', { auth: 'none' })).status, 200);

      const good = await create({ emailTemplateId: MENTION, displayName: 'good', ejs: 'Hi <%= username.toUpperCase() %>' });
      const broken = await server.api<{ code: string; secondaryCode: string }>('PATCH', `/api/v1/email-templates/${good.body.emailTemplate._id}`, { body: { ejs: '<%= username.nope.deeper %>' } });
      assert.equal(broken.body.secondaryCode, 'render-error', 'an update is rendered too');
      const kept = await server.api<{ emailTemplate: Template }>('GET', `/api/v1/email-templates/${good.body.emailTemplate._id}`);
      assert.equal(kept.body.emailTemplate.ejs, 'Hi <%= username.toUpperCase() %>', 'a refused update changes nothing');
      const wrongData = await server.api<{ secondaryCode: string }>('PATCH', `/api/v1/email-templates/${good.body.emailTemplate._id}`, { body: { testData: { username: 7 } } });
      assert.equal(wrongData.body.secondaryCode, 'render-error', 'test data the template cannot render with is refused');
      await server.api('DELETE', `/api/v1/email-templates/${good.body.emailTemplate._id}`);
    });

    test('preview renders with the given test data and translations, and refuses what does not render', async () => {
      const res = await server.api<{ html: string }>('POST', '/api/v1/email-templates/render', {
        body: { emailTemplateId: MENTION, displayName: 'ignored', ejs: '<%= TEXT.VIEW %>: <%= comment.commenterName %>', testData: { comment: { commenterName: 'Zoe' } }, translationOverridesByLocale: { en_us: { VIEW: 'Look' } } },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assertWireShape('RenderEmailTemplate', res.body);
      assert.equal(res.body.html, 'Look: Zoe');
      const defaults = await server.api<{ html: string }>('POST', '/api/v1/email-templates/render', { body: { emailTemplateId: MENTION, ejs: '<%= username %>' } });
      assert.equal(defaults.body.html, 'winrid', 'the definition\'s test data when none is given');
      const bad = await server.api<{ code: string }>('POST', '/api/v1/email-templates/render', { body: { emailTemplateId: MENTION, ejs: '<% for(;;){} %>' } });
      assert.equal(bad.body.code, 'does-not-render');
    });

    test('given test data completes the definition\'s: a preview or a template never fails on a field the caller did not send', async () => {
      // The subject of commenter-verify-post reads `domain`, which this test data lacks.
      const preview = await server.api<{ html: string; code?: string; reason?: string }>('POST', '/api/v1/email-templates/render', {
        body: { emailTemplateId: 'commenter-verify-post', ejs: '<p>Hi <%= who %>!</p>', testData: { who: 'Zed' } },
      });
      assert.equal(preview.status, 200, JSON.stringify(preview.body));
      assertWireShape('RenderEmailTemplate', preview.body);
      assert.equal(preview.body.html, '<p>Hi Zed!</p>');
      const nested = await server.api<{ html: string }>('POST', '/api/v1/email-templates/render', {
        body: { emailTemplateId: MENTION, ejs: '<%= comment.commenterName %> on <%= comment.url %>', testData: { comment: { commenterName: 'Zoe' } } },
      });
      assert.equal(nested.status, 200, JSON.stringify(nested.body));
      assert.match(nested.body.html, /^Zoe on https?:\/\//, 'nested objects are completed too');
      const stored = await create({ emailTemplateId: 'commenter-verify-post', displayName: 'partial data', ejs: '<p>Hi <%= who %>!</p>', testData: { who: 'Zed' } });
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      const patched = await server.api<{ emailTemplate: Template }>('PATCH', `/api/v1/email-templates/${stored.body.emailTemplate._id}`, { body: { testData: { who: 'Ann' } } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      await server.api('DELETE', `/api/v1/email-templates/${stored.body.emailTemplate._id}`);
    });

    test('render errors of a template: listed and deleted; other tenants see nothing', async () => {
      const t = await create({ emailTemplateId: MENTION, displayName: 'r', ejs: 'r' });
      const id = t.body.emailTemplate._id;
      const empty = await server.api('GET', `/api/v1/email-templates/${id}/render-errors`);
      assert.equal(empty.status, 200);
      assertWireShape('GetEmailTemplateRenderErrors', empty.body);
      const missing = await server.api<{ code: string }>('DELETE', `/api/v1/email-templates/${id}/render-errors/nope`);
      assert.equal(missing.body.code, 'not-found');
      const other = await server.addTenant();
      const theirs = await server.api<{ code: string }>('GET', `/api/v1/email-templates/${id}`, { auth: 'none', headers: { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId } });
      assert.equal(theirs.body.code, 'not-found');
      await server.api('DELETE', `/api/v1/email-templates/${id}`);
    });

    test('templates survive a restart', async () => {
      const t = await create({ emailTemplateId: MENTION, displayName: 'kept', ejs: 'kept', domain: 'shop.example.com' });
      server = await server.restart();
      const got = await server.api<{ emailTemplate: Template }>('GET', `/api/v1/email-templates/${t.body.emailTemplate._id}`);
      assert.equal(got.body.emailTemplate.displayName, 'kept');
      assert.equal((await create({ emailTemplateId: MENTION, displayName: 'dup', ejs: 'dup', domain: 'shop.example.com' })).body.code, 'duplicate');
    });
  });
}
