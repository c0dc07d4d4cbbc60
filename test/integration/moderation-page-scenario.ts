/**
 * The lifecycle the moderation page's browser tests share: a server whose tenant holds comments
 * for approval, a mail sink that receives login links, and moderators' browsers signed in by
 * those links, closed after each test.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe } from 'node:test';
import { openReader, type Reader } from '../fixtures/browser.js';
import { startTestServer, storages, type StorageName, type TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { call, linkIn, ok } from './identity-helpers.js';
import { MOD } from './moderation-helpers.js';

type Json = Record<string, any>;

/** One storage's server, mail sink and browsers; `describe` gives a block this lifecycle. */
export class ModerationScenario {
  t!: TestServer;
  sink!: SmtpSink;
  tenantId = '';
  /** The origin the login links name: their session cookie is that host's. */
  pageOrigin = '';
  readonly #browsers: Reader[] = [];
  #people = 0;

  constructor(
    readonly storage: StorageName,
    /** Tells this file's tenant users apart from another's. */
    readonly prefix: string,
  ) {}

  /** `body` once per storage, titled `<title> on <storage>`, with the scenario set up around it. */
  static describe(title: string, prefix: string, body: (s: ModerationScenario) => void): void {
    for (const storage of storages()) {
      describe(`${title} on ${storage}`, () => {
        const s = new ModerationScenario(storage, prefix);
        before(() => s.onStart());
        // Each test's browsers end with it: a machine shared with other tests keeps few Chromiums.
        afterEach(() => s.closeBrowsers());
        after(() => s.onStop());
        body(s);
      });
    }
  }

  async onStart(): Promise<void> {
    this.sink = await SmtpSink.start();
    this.t = await startTestServer(this.storage, { smtpUrl: this.sink.url, mailFrom: 'Site <robot@example.net>' });
    this.tenantId = this.t.tenant.tenantId;
    ok(await this.t.api('PATCH', `/api/v1/tenants/${this.tenantId}`, { body: { commentsRequireApproval: true } }));
  }

  async onStop(): Promise<void> {
    await this.t?.destroy();
    await this.sink?.close();
  }

  async closeBrowsers(): Promise<void> {
    for (const b of this.#browsers.splice(0)) await b.close();
  }

  /** A browser of its own at `url`, closed after the test. */
  async open(url: string): Promise<Reader> {
    const browser = await openReader(url);
    this.#browsers.push(browser);
    return browser;
  }

  /** A tenant user with `fields`, and the login link sent to them (not opened). */
  async loginLink(fields: Json, redirectURL?: string): Promise<string> {
    const n = ++this.#people;
    const email = `${this.prefix}-${n}-${this.storage}@example.com`;
    const user = ok(await call<{ tenantUser: Json }>(this.t, 'POST', '/api/v1/tenant-users', { body: { username: `${this.prefix}-${n}-${this.storage}`, email, ...fields } })).tenantUser;
    ok(await call(this.t, 'POST', `/api/v1/tenant-users/${String(user['id'])}/send-login-link`, redirectURL === undefined ? {} : { query: { redirectURL } }));
    const got = await this.sink.waitFor((r: Received) => r.rcptTo.includes(email), 'the login link');
    const link = linkIn(got, '/auth/login-link/');
    this.pageOrigin = new URL(link).origin;
    return link;
  }

  /** A moderator's browser: the login link opened there lands on the moderation page, its feed connected. */
  async openModeration(): Promise<Reader> {
    const browser = await this.open(await this.loginLink({ isCommentModeratorAdmin: true }));
    assert.equal(new URL(browser.page.url()).pathname, MOD, 'the link lands on the moderation page');
    await browser.page.getByRole('heading', { name: 'Moderation', level: 1 }).waitFor();
    await browser.page.getByText('Live: new comments appear here as they are posted.').waitFor();
    return browser;
  }

  /** The `Cookie` header of a browser's session, for calls made beside it. */
  async cookieOf(browser: Reader): Promise<string> {
    const session = (await browser.context.cookies(this.pageOrigin)).find((c) => c.name === 'fc_tenant_session');
    assert.ok(session, 'the login link opened a session');
    return `${session.name}=${session.value}`;
  }
}
