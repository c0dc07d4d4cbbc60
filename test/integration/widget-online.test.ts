/**
 * Who is online, in real Chromium: the names of the readers on the page under the "N viewing"
 * count, private profiles and anonymous readers without names, and a reader who leaves taken off the list
 * live. Host page on localhost, API on 127.0.0.1, third-party cookies blocked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { secureSso } from './public-comments-helpers.js';

WidgetScenario.describe(`who is online in the widget`, (s) => {
  const open = (path: string, extra: Record<string, unknown>) => s.reader(s.embed('online-1', extra, path));

  test('the names of the readers online show under the count, private and anonymous ones without names, leavers removed live', async () => {
    const ada = await open('/online-ada', { sso: JSON.parse(secureSso(s.t.tenant.apiSecret, { id: 'ada-1', email: 'ada@example.com', username: 'Ada', isProfileActivityPrivate: false })) });
    const list = ada.page.getByRole('list', { name: 'Online now' });
    await list.getByRole('listitem').filter({ hasText: /^Ada$/ }).waitFor();

    const bo = await open('/online-bo', { sso: JSON.parse(secureSso(s.t.tenant.apiSecret, { id: 'bo-1', email: 'bo@example.com', username: 'Bo' })) });
    await open('/online-anon', {});
    // Bo keeps the SSO default, a private profile: online, but without a name.
    await list.getByRole('listitem').filter({ hasText: 'Private user' }).waitFor();
    await list.getByRole('listitem').filter({ hasText: '1 anonymous readers' }).waitFor();
    await ada.page.getByText('3 viewing').waitFor();
    assert.equal(await list.getByText('Bo').count(), 0);
    // Bo sees the same people from the other side.
    await bo.page.getByRole('list', { name: 'Online now' }).getByRole('listitem').filter({ hasText: /^Ada$/ }).waitFor();

    // Bo leaves: Ada's list loses Bo without a reload.
    await s.leave(bo);
    await list.getByRole('listitem').filter({ hasText: 'Private user' }).waitFor({ state: 'detached' });
    await ada.page.getByText('2 viewing').waitFor();
    assert.deepEqual(await list.getByRole('listitem').allTextContents(), ['Ada', '1 anonymous readers']);
  });
});
