import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { after, before, describe, test } from 'node:test';
import { EmailOutboxKind } from '../../actors/email/protocol.js';
import { eventually } from '../fixtures/eventually.js';
import { assertWireShape, checkedFetch } from '../fixtures/openapi.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';

interface Comment {
  _id: string;
  verified: boolean;
}

/** A header as it was sent (mailparser folds List-* headers into a structure of its own). */
function rawHeader(got: Received, name: string): string {
  const line = got.mail.headerLines.find((h) => h.key === name)?.line;
  assert.ok(line !== undefined, `no ${name} header`);
  return line.slice(line.indexOf(':') + 1).replace(/\s+/g, ' ').trim();
}

/** The href of the first link whose URL contains `part`, as a reader's browser would open it. */
function linkIn(html: string, part: string): string {
  const m = new RegExp(`href="([^"]*${part}[^"]*)"`).exec(html);
  assert.ok(m, `no ${part} link in ${html}`);
  return m[1]!.replaceAll('&amp;', '&');
}

for (const storage of storages()) {
  describe(`email delivery on ${storage}`, () => {
    let sink: SmtpSink;
    let server: TestServer;
    before(async () => {
      sink = await SmtpSink.start();
      // Public routes (the links) with a small allowance per client, to see it apply to the links.
      server = await startTestServer(storage, { smtpUrl: sink.url, mailFrom: 'Site <robot@example.net>', emailRetryMs: 50, publicReadBurst: 20, publicReadRate: 1 });
      const blog = { domain: 'blog.example.com', emailFromName: 'The Blog', emailFromEmail: 'news@blog.example.com', footerUnsubscribeURL: 'https://blog.example.com/unsubscribe', emailHeaders: { 'X-Site': 'blog', 'X-Bad': 'a\r\nBcc: evil@example.org' } };
      assert.equal((await server.api('POST', '/api/v1/domain-configs', { body: blog })).status, 200);
      assert.equal((await server.api('POST', '/api/v1/domain-configs', { body: { domain: 'shop.example.com' } })).status, 200);
    });
    after(async () => {
      await server.destroy();
      await sink.close();
    });

    const comment = (email: string, urlId: string, host = 'blog.example.com', name = email.split('@')[0]!) =>
      server.api<{ comment: Comment; user: { id: string } | null }>('POST', '/api/v1/comments', {
        query: { sendEmails: true },
        body: { commenterName: name, commenterEmail: email, comment: `Hello from ${name}`, url: `https://${host}/${urlId}`, urlId, locale: 'en_us' },
      });
    const to = (address: string) => (r: Received) => r.rcptTo.includes(address);
    const failed = () => server.server.services.system.ask(EmailOutboxKind, server.tenant.tenantId, 'list', { state: 'failed' });

    test("a new commenter gets the tenant's template for the comment's domain, with the domain's sender, headers and unsubscribe link", async () => {
      const template = await server.api('POST', '/api/v1/email-templates', {
        body: {
          emailTemplateId: 'commenter-verify-post',
          displayName: 'Blog welcome',
          domain: 'blog.example.com',
          ejs: '<p>Welcome to the blog, <%= comment.commenterName %>!</p><blockquote><%- comment.commentHTML %></blockquote><a href="<%= verifyPostUrl %>"><%= TEXT.VERIFY %></a> <a href="<%= unsubscribeUrl %>">stop</a>',
          translationOverridesByLocale: { en_us: { SUBJECT: 'Confirm your words, <%= comment.commenterName %>', VERIFY: 'Yes, it was me' } },
        },
      });
      assert.equal(template.status, 200, JSON.stringify(template.body));
      const res = await comment('ann@example.org', 'post-1');
      assert.equal(res.status, 200, JSON.stringify(res.body));

      const got = await sink.waitFor(to('ann@example.org'), "Ann's welcome");
      assert.deepEqual(got.rcptTo, ['ann@example.org']);
      assert.equal(got.mail.subject, 'Confirm your words, ann');
      assert.match(String(got.mail.html), /<p>Welcome to the blog, ann!<\/p><blockquote>Hello from ann<\/blockquote>/);
      assert.match(String(got.mail.html), /Yes, it was me/);
      assert.match(String(got.mail.text), /Welcome to the blog, ann!/);
      assert.equal(got.mail.from?.value[0]?.address, 'news@blog.example.com');
      assert.equal(got.mail.from?.value[0]?.name, 'The Blog');
      assert.equal(got.mail.headers.get('x-site'), 'blog');
      assert.equal(got.mail.headers.get('x-bad'), 'a Bcc: evil@example.org', 'header values cannot add headers');
      assert.equal(got.mail.headers.get('bcc'), undefined);
      assert.match(rawHeader(got, 'list-unsubscribe'), /https:\/\/blog\.example\.com\/unsubscribe/);
      assert.match(String(got.mail.html), /href="https:\/\/blog\.example\.com\/unsubscribe">stop/);
      assert.match(got.messageId, /^<[0-9a-f]{24}\.[0-9a-f]{24}@localhost>$/);
    });

    test('the verification link verifies every comment of that user, on every page; a forged link is refused', async () => {
      const second = await comment('ann@example.org', 'post-2');
      assert.equal(second.status, 200);
      assert.equal(second.body.comment.verified, false);
      const welcome = await sink.waitFor(to('ann@example.org'));
      const link = linkIn(String(welcome.mail.html), '/email/v1/verify');
      assert.ok(link.startsWith(`${server.url.replace('127.0.0.1', 'localhost')}/email/v1/verify?`), link);
      const path = link.slice(link.indexOf('/email/'));

      const forged = await checkedFetch(server.url + path.replace(/sig=[^&]+/, 'sig=AAAA'));
      assert.equal(forged.status, 400);
      assert.equal(((await forged.json()) as { code: string }).code, 'invalid-link');

      const opened = await checkedFetch(server.url + path);
      assert.equal(opened.status, 200);
      assert.deepEqual(await opened.json(), { status: 'success', verifiedCount: 2 });
      for (const urlId of ['post-1', 'post-2']) {
        const page = await server.api<{ comments: Comment[] }>('GET', '/api/v1/comments', { query: { urlId } });
        assert.deepEqual(page.body.comments.map((c) => c.verified), [true], urlId);
      }
      const again = await checkedFetch(server.url + path);
      assert.deepEqual(await again.json(), { status: 'success', verifiedCount: 0 }, 'opening it again changes nothing');

      // A known email gets no second welcome: the next email to arrive is someone else's.
      await comment('bea@example.org', 'post-3');
      await sink.waitFor(to('bea@example.org'));
      assert.equal(sink.attempts.filter(to('ann@example.org')).length, 1);
    });

    test('an SMTP 4xx answer is retried with the same Message-ID until it is accepted', async () => {
      sink.answerNext(451, 451);
      await comment('cid@example.org', 'post-4', 'shop.example.com');
      await eventually(async () => sink.attempts.filter(to('cid@example.org')).length >= 3, 30_000);
      const tries = sink.attempts.filter(to('cid@example.org'));
      assert.deepEqual(tries.map((t) => t.code), [451, 451, 250]);
      assert.equal(new Set(tries.map((t) => t.messageId)).size, 1, 'one Message-ID across attempts');
      assert.equal(tries[2]!.mail.subject, 'Please confirm your comment on shop.example.com', 'the built-in template where the tenant has none');
      assert.match(rawHeader(tries[2]!, 'list-unsubscribe'), /\/email\/v1\/unsubscribe\?/, 'our own unsubscribe link without footerUnsubscribeURL');
    });

    test('an SMTP 5xx answer is final: recorded as failed, never retried', async () => {
      sink.answerNext(550);
      await comment('dan@example.org', 'post-5', 'shop.example.com');
      await eventually(async () => (await failed()).some((d) => d.to === 'dan@example.org'), 30_000);
      const entry = (await failed()).find((d) => d.to === 'dan@example.org')!;
      assert.equal(entry.attempts, 1);
      assert.match(String(entry.lastError), /Mailbox unavailable/);
      // The next email through the same outbox arrives; the failed one was not tried again.
      await comment('eve@example.org', 'post-6', 'shop.example.com');
      await sink.waitFor(to('eve@example.org'));
      assert.equal(sink.attempts.filter(to('dan@example.org')).length, 1);
    });

    test('a tenant template that fails on real data records a render error, and the built-in template is sent', async () => {
      const template = await server.api<{ emailTemplate: { _id: string } }>('POST', '/api/v1/email-templates', {
        body: { emailTemplateId: 'commenter-verify-post', displayName: 'Fragile', domain: 'shop.example.com', ejs: 'Title: <%= comment.pageTitle.toUpperCase() %>' },
      });
      assert.equal(template.status, 200, 'renders with the test data, which has a page title');
      await comment('fay@example.org', 'post-7', 'shop.example.com');
      const got = await sink.waitFor(to('fay@example.org'));
      assert.match(String(got.mail.html), /Confirm my comment/);
      const id = template.body.emailTemplate._id;
      const errors = await server.api<{ renderErrors: { id: string; error: string; count: number }[] }>('GET', `/api/v1/email-templates/${id}/render-errors`);
      assertWireShape('GetEmailTemplateRenderErrors', errors.body);
      assert.equal(errors.body.renderErrors.length, 1);
      assert.match(errors.body.renderErrors[0]!.error, /TypeError/);
      assert.equal(errors.body.renderErrors[0]!.count, 1);
      const removed = await server.api('DELETE', `/api/v1/email-templates/${id}/render-errors/${errors.body.renderErrors[0]!.id}`);
      assertWireShape('DeleteEmailTemplateRenderError', removed.body);
      assert.deepEqual((await server.api<{ renderErrors: unknown[] }>('GET', `/api/v1/email-templates/${id}/render-errors`)).body.renderErrors, []);

      // Our own unsubscribe link stops further non-transactional email to the address.
      const unsubscribe = rawHeader(got, 'list-unsubscribe').replace(/^<|>$/g, '');
      const path = unsubscribe.slice(unsubscribe.indexOf('/email/'));
      assert.equal((await checkedFetch(server.url + path.replace('fay%40', 'gus%40'))).status, 400, 'the signature covers the address');
      assert.deepEqual(await (await checkedFetch(server.url + path)).json(), { status: 'success', unsubscribed: true });
    });

    test('a tenant template that ends the render host while sending: memory-limit recorded, the built-in template sent', async () => {
      assert.equal((await server.api('POST', '/api/v1/domain-configs', { body: { domain: 'news.example.com' } })).status, 200);
      const template = await server.api<{ emailTemplate: { _id: string } }>('POST', '/api/v1/email-templates', {
        body: {
          emailTemplateId: 'commenter-verify-post',
          displayName: 'Greedy without a title',
          domain: 'news.example.com',
          ejs: "<% if (!comment.pageTitle) { %><%= 'x'.repeat(1e8).split('').length %><% } %>fine",
        },
      });
      assert.equal(template.status, 200, JSON.stringify(template.body));
      await comment('ida@example.org', 'post-8', 'news.example.com');
      const got = await sink.waitFor(to('ida@example.org'));
      assert.match(String(got.mail.html), /Confirm my comment/);
      const errors = await server.api<{ renderErrors: { error: string }[] }>('GET', `/api/v1/email-templates/${template.body.emailTemplate._id}/render-errors`);
      assert.deepEqual(errors.body.renderErrors.map((e) => e.error.split(':')[0]), ['memory-limit']);
      assert.equal((await server.api('GET', '/healthz', { auth: 'none' })).status, 200);
    });

    test('link openings are limited per client address, as every public route is', async () => {
      const forged = `${server.url}/email/v1/verify?tenantId=${server.tenant.tenantId}&userId=u&exp=1&sig=forged`;
      const codes: string[] = [];
      for (let i = 0; i < 60 && !codes.includes('rate-limited'); i++) codes.push(((await (await checkedFetch(forged)).json()) as { code: string }).code);
      assert.ok(codes.includes('invalid-link'));
      assert.equal(codes.at(-1), 'rate-limited');
    });
  });
}

describe('email without SMTP_URL', () => {
  test('each email is written as an .eml file under DATA_DIR/outbox-mail/', async () => {
    const server = await startTestServer('lmdb');
    try {
      const res = await server.api('POST', '/api/v1/comments', {
        query: { sendEmails: true },
        body: { commenterName: 'Hal', commenterEmail: 'hal@example.org', comment: 'Written down', url: 'https://example.com/f', urlId: 'f', locale: 'en_us' },
      });
      assert.equal(res.status, 200);
      const dir = join(server.server.services.config.dataDir, 'outbox-mail');
      let files: string[] = [];
      await eventually(async () => (files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')) : []).length > 0, 30_000);
      assert.equal(files.length, 1);
      const mail = await simpleParser(readFileSync(join(dir, files[0]!)));
      assert.equal(mail.subject, 'Please confirm your comment on example.com');
      assert.deepEqual(mail.to && !Array.isArray(mail.to) ? mail.to.value.map((a) => a.address) : [], ['hal@example.org']);
      assert.match(String(mail.html), /Written down/);
    } finally {
      await server.destroy();
    }
  });
});

describe('a full outbox', () => {
  test('refuses sendEmails=true with 429 email-queue-full before the comment is created', async () => {
    const sink = await SmtpSink.start();
    const server = await startTestServer('lmdb', { smtpUrl: sink.url, emailTenantQueueLimit: 1 });
    try {
      sink.hold();
      const post = (name: string) =>
        server.api<{ code?: string }>('POST', '/api/v1/comments', {
          query: { sendEmails: true },
          body: { commenterName: name, commenterEmail: `${name}@example.org`, comment: `From ${name}`, url: 'https://example.com/q', urlId: 'q', locale: 'en_us' },
        });
      assert.equal((await post('jo')).status, 200);
      await sink.waitFor((r) => r.rcptTo.includes('jo@example.org'));
      const refused = await post('kai');
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, 'email-queue-full');
      const page = await server.api<{ comments: { commenterName: string }[] }>('GET', '/api/v1/comments', { query: { urlId: 'q' } });
      assert.deepEqual(page.body.comments.map((c) => c.commenterName), ['jo'], 'nothing was created');
      sink.release();
      await eventually(async () => (await post('kai')).status === 200, 30_000);
    } finally {
      await server.destroy();
      await sink.close();
    }
  });
});
