/**
 * The widget in real Chromium for one reader at a time: anonymous readers and their edit keys
 * (kept without third-party cookies), secure and simple single sign-on, server errors shown in
 * words beside the form, and keyboard-only use (paging, orders and axe-core: widget-browsing.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tabTo } from '../fixtures/widget-page.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { secureSso } from './public-comments-helpers.js';

WidgetScenario.describe(`the widget's readers`, (s) => {
  test('an anonymous author keeps its edit key across reloads without cookies; nobody else may edit', async () => {
    const url = s.embed('anon-1');
    const a = await s.open(url);
    await a.getByRole('textbox', { name: 'Write a comment…' }).fill('Mine to edit');
    await a.getByLabel('Your name').fill('Ann');
    await a.getByLabel('Your email').fill('ann@example.com');
    await a.getByRole('button', { name: 'Post' }).click();
    const mine = a.getByRole('article', { name: 'Ann' });
    await mine.getByRole('button', { name: 'Edit' }).waitFor();

    await a.reload();
    await mine.getByText('Mine to edit').waitFor();
    await mine.getByRole('button', { name: 'Edit' }).waitFor();
    // Third-party cookies are blocked: the session travels as sessionId, not as the API's cookie.
    assert.equal((await a.context().cookies(s.t.url)).length, 0);

    const b = await s.open(url);
    const theirs = b.getByRole('article', { name: 'Ann' });
    await theirs.getByText('Mine to edit').waitFor();
    assert.equal(await theirs.getByRole('button', { name: 'Edit' }).count(), 0);
    assert.equal(await theirs.getByRole('button', { name: 'Delete' }).count(), 0);
    await theirs.getByRole('button', { name: 'Report' }).waitFor();
  });

  test('secure single sign-on readers post as themselves and own their comments; simple SSO readers do not own them', async () => {
    const sso = JSON.parse(secureSso(s.t.tenant.apiSecret, { id: 'u-1', email: 'sue@example.com', username: 'Sue' }));
    const page = await s.open(s.embed('sso-1', { sso: { ...sso, logoutURL: 'https://blog.example.com/logout' } }));
    await page.getByRole('link', { name: 'Log out' }).waitFor();
    assert.equal(await page.getByLabel('Your name').count(), 0, 'a signed-on reader is not asked for a name');
    await page.getByRole('textbox', { name: 'Write a comment…' }).fill('Signed on');
    await page.getByRole('button', { name: 'Post' }).click();
    const mine = page.getByRole('article', { name: 'Sue' });
    await mine.getByText('Signed on').waitFor();
    await page.reload();
    await mine.getByRole('button', { name: 'Edit' }).waitFor();

    const other = await s.open(s.embed('sso-1', { simpleSSO: { username: 'Sam', email: 'sam@example.com' } }));
    const seen = other.getByRole('article', { name: 'Sue' });
    await seen.getByText('Signed on').waitFor();
    assert.equal(await seen.getByRole('button', { name: 'Edit' }).count(), 0);
    await other.getByRole('textbox', { name: 'Write a comment…' }).fill('Simple one');
    await other.getByRole('button', { name: 'Post' }).click();
    await other.getByRole('article', { name: 'Sam' }).getByText('Simple one').waitFor();

    // Sam replies to Sue: Sue's bell counts it live, lists it, and marks it read.
    await seen.getByRole('button', { name: 'Reply' }).click();
    await other.getByRole('textbox', { name: 'Reply to Sue' }).fill('Hi Sue');
    await other.getByRole('form', { name: 'Reply to Sue' }).getByRole('button', { name: 'Reply' }).click();
    await other.getByText('Hi Sue').waitFor();
    await page.getByRole('button', { name: 'Notifications (1)' }).click();
    await page.getByRole('region', { name: 'Notifications' }).getByText('Sam replied to your comment').waitFor();
    await page.getByRole('button', { name: 'Mark as read' }).click();
    await page.getByRole('button', { name: 'Notifications (0)' }).waitFor();
  });

  test('a site administrator pins and locks in the thread; the author sees it', async () => {
    // The form is usable before the first list read answers: that read is taken before the post
    // and answered only once the posted comment is shown, so its answer must not drop it.
    let holding = true;
    let taken!: () => void;
    const readTaken = new Promise<void>((resolve) => (taken = resolve));
    let answered!: () => void;
    const firstRead = new Promise<void>((resolve) => (answered = resolve));
    const author = await s.open(s.embed('mod-1', { simpleSSO: { username: 'Tom', email: 'tom@example.com' } }), { beforeLoad: (page) =>
      page.route(
        (u) => u.pathname === `/comments/${s.t.tenant.tenantId}`,
        async (route) => {
          const method = route.request().method();
          if (method === 'GET' && holding) {
            holding = false;
            try {
              const response = await route.fetch();
              taken();
              await page.getByRole('article', { name: 'Tom' }).waitFor();
              await route.fulfill({ response });
            } finally {
              answered();
            }
            return;
          }
          if (method === 'POST') await readTaken;
          await route.fulfill({ response: await route.fetch() });
        },
      ),
    });
    await author.getByRole('textbox', { name: 'Write a comment…' }).fill('Pin me');
    await author.getByRole('button', { name: 'Post' }).click();
    await firstRead;
    const mine = author.getByRole('article', { name: 'Tom' });
    await mine.getByText('Pin me').waitFor();
    await mine.getByRole('button', { name: 'Edit' }).waitFor();

    const sso = JSON.parse(secureSso(s.t.tenant.apiSecret, { id: 'boss', email: 'boss@example.com', username: 'Boss', isAdmin: true }));
    // A page of its own: the author's reload below must load the author's page, not this one.
    const admin = await s.open(s.embed('mod-1', { sso }, '/mod-1-admin'));
    const seen = admin.getByRole('article', { name: 'Tom' });
    await seen.getByRole('button', { name: 'Moderate' }).click();
    await seen.getByRole('button', { name: 'Pin', exact: true }).click();
    await seen.getByRole('button', { name: 'Unpin' }).waitFor();
    await mine.getByText('Pinned').waitFor();
    await seen.getByRole('button', { name: 'Lock', exact: true }).click();
    await seen.getByText('Locked').waitFor();
    await author.reload();
    await mine.getByText('Locked').waitFor();
    assert.equal(await mine.getByRole('button', { name: 'Edit' }).count(), 0, 'a locked comment is not editable by its author');
    assert.equal(await mine.getByRole('button', { name: 'Moderate' }).count(), 0, 'readers get no moderation menu');
  });

  test('the toolbar formats the selection and the preview shows what will be posted', async () => {
    const page = await s.open(s.embed('format-1'));
    const text = page.getByRole('textbox', { name: 'Write a comment…' });
    await text.fill('loud');
    await text.selectText();
    await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Bold' }).click();
    assert.equal(await text.inputValue(), '**loud**');
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('loud', { exact: true }).waitFor();
    assert.equal(await preview.textContent(), 'loud');
    await page.getByLabel('Your name').fill('Fay');
    await page.getByRole('button', { name: 'Post' }).click();
    const posted = page.getByRole('article', { name: 'Fay' });
    await posted.getByText('loud', { exact: true }).waitFor();
    assert.equal(await posted.getByText('**loud**').count(), 0);
  });

  test('a refusal is shown in words beside the form, and the character limit as one types', async () => {
    const page = await s.open(s.embed('errors-1', { maxCommentCharacterLength: 20 }));
    const text = page.getByRole('textbox', { name: 'Write a comment…' });
    await text.fill('Short');
    await page.getByText('5 / 20').waitFor();
    await page.getByLabel('Your name').fill('me@example.com');
    await page.getByRole('button', { name: 'Post' }).click();
    await page.getByRole('alert').getByText('The commenter name must not be an email address.').waitFor();
    assert.equal(await page.getByRole('article').count(), 0, 'nothing was posted');

    await text.fill('This text is longer than twenty');
    await page.getByRole('alert').getByText('The comment is longer than 20 characters.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Post' }).isDisabled(), true);
  });

  test('keyboard only: post, reply and vote without a mouse', async () => {
    const page = await s.open(s.embed('keys-1'));
    await page.getByText('No comments yet. Be the first!').waitFor();
    await tabTo(page, page.getByRole('textbox', { name: 'Write a comment…' }));
    await page.keyboard.type('Typed, not clicked');
    await tabTo(page, page.getByLabel('Your name'));
    await page.keyboard.type('Kim');
    await tabTo(page, page.getByRole('button', { name: 'Post' }));
    await page.keyboard.press('Enter');
    const kim = page.getByRole('article', { name: 'Kim' });
    await kim.getByText('Typed, not clicked').waitFor();

    await tabTo(page, kim.getByRole('button', { name: 'Reply' }));
    await page.keyboard.press('Enter');
    // The reply box takes the focus at once.
    await tabTo(page, page.getByRole('textbox', { name: 'Reply to Kim' }), 0);
    await page.keyboard.type('A keyboard reply');
    await tabTo(page, page.getByRole('form', { name: 'Reply to Kim' }).getByRole('button', { name: 'Reply' }));
    await page.keyboard.press('Enter');
    await page.getByText('A keyboard reply').waitFor();

    await tabTo(page, kim.getByRole('button', { name: 'Vote up' }).first());
    await page.keyboard.press('Space');
    await kim.getByRole('button', { name: 'Vote up', pressed: true }).first().waitFor();
    await kim.getByLabel('1 votes').first().waitFor();
  });
});
