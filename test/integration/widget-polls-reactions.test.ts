/**
 * Page reactions and polls in the widget, in real Chromium (host page on localhost, API on
 * 127.0.0.1, third-party cookies blocked): two readers in two browsers see each other's
 * reactions and poll votes live; a poll that requires a vote shows its results only to a
 * reader who voted; reacting and voting work from the keyboard alone; a banned reader is told
 * so in words; axe-core finds no serious or critical violation in either theme.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { repoFile } from '../fixtures/paths.js';
import { SmtpSink } from '../fixtures/smtp-sink.js';
import { seriousViolations, tabTo } from '../fixtures/widget-page.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { good, mod } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { pollInput, seed } from './poll-fixture.js';

/** Screenshots (test output). */
const SHOTS = repoFile('dist/test-output/widget');

const WOW = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><circle cx="10" cy="10" r="9" fill="#f5c400"/><circle cx="10" cy="13" r="3" fill="#000"/></svg>')}`;
const REACTIONS = { reacts: [{ id: 'heart', emoji: '❤️', label: 'Heart' }, { id: 'wow', src: WOW, label: 'Wow' }] };

/** A mail sink for the server's mail. */
class PollsReactions extends WidgetScenario {
  sink!: SmtpSink;
  protected override async setUp(): Promise<void> {
    this.sink = await SmtpSink.start();
  }
  protected override serverOptions() {
    return { ...super.serverOptions(), smtpUrl: this.sink.url, mailFrom: 'Site <robot@example.net>' };
  }
  protected override async tearDown(): Promise<void> {
    await this.sink.close();
  }
}

PollsReactions.describe(`polls and page reactions in the widget`, (s) => {
  const embed = (urlId: string) => s.embed(urlId, { pageReactConfig: REACTIONS });
  const reaction = (page: Page, name: string) => page.getByRole('group', { name: 'Reactions to this page' }).getByRole('button', { name: new RegExp(`^${name}: \\d+$`) });
  /** Both readers' live channels are open (each sees the other as viewing). */
  const bothLive = async (a: Page, b: Page) => {
    for (const page of [a, b]) await page.getByText('2 viewing').waitFor();
  };

  test('reactions: A reacts, B sees the count live; B reacts from the keyboard; kept across a reload; a ban is told in words', async () => {
    const url = embed('reacts-1');
    const a = await s.open(url);
    const b = await s.open(url);
    await bothLive(a, b);
    for (const page of [a, b]) await page.getByRole('button', { name: 'Heart: 0', pressed: false }).waitFor();

    await reaction(a, 'Heart').click();
    await a.getByRole('button', { name: 'Heart: 1', pressed: true }).waitFor();
    await b.getByRole('button', { name: 'Heart: 1', pressed: false }).waitFor();

    // B, keyboard only: Tab to the reaction, Enter gives it, Space takes it back.
    await tabTo(b, reaction(b, 'Wow'));
    await b.keyboard.press('Enter');
    await b.getByRole('button', { name: 'Wow: 1', pressed: true }).waitFor();
    await a.getByRole('button', { name: 'Wow: 1', pressed: false }).waitFor();
    await b.keyboard.press('Space');
    await b.getByRole('button', { name: 'Wow: 0', pressed: false }).waitFor();
    await a.getByRole('button', { name: 'Wow: 0' }).waitFor();

    // A's session outlives the page (the API's cookie is blocked; the widget keeps the session id).
    await a.reload();
    await a.getByRole('button', { name: 'Heart: 1', pressed: true }).waitFor();
    await a.getByText('2 viewing').waitFor();
    await reaction(a, 'Heart').click();
    await a.getByRole('button', { name: 'Heart: 0', pressed: false }).waitFor();
    await b.getByRole('button', { name: 'Heart: 0' }).waitFor();

    // A posts, is banned from that comment, and is told so when reacting; nothing changes.
    await a.getByRole('textbox', { name: 'Write a comment…' }).fill('Rude words');
    await a.getByLabel('Your name').fill('Rudy');
    await a.getByRole('button', { name: 'Post' }).click();
    await a.getByRole('article', { name: 'Rudy' }).waitFor();
    const listed = await s.t.api<{ comments: { _id: string }[] }>('GET', '/api/v1/comments', { query: { urlId: 'reacts-1' } });
    const { cookie } = await signIn(s.t, s.sink, { isAdminAdmin: true });
    good(await mod(s.t, cookie, 'POST', `/ban-user/from-comment/${listed.body.comments[0]!._id}`, { banReason: 'rude' }));
    await reaction(a, 'Wow').click();
    await a.getByRole('alert').filter({ hasText: 'You are banned from taking part on this site.' }).waitFor();
    assert.equal(await a.getByRole('button', { name: 'Wow: 0', pressed: false }).count(), 1);
  });

  test('polls: A votes and sees results; B sees counts live; results that need a vote stay hidden until B votes from the keyboard; change and take back', async () => {
    const urlId = 'polls-1';
    const open1 = await seed(s.t, { urlId, poll: { ...pollInput(2), question: 'Best fruit?', options: [{ label: 'Apple' }, { label: 'Pear' }] } });
    const secret = await seed(s.t, { urlId, poll: { ...pollInput(2), question: 'Best season?', options: [{ label: 'Summer' }, { label: 'Winter' }], requireVoteToSeeResults: true } });
    assert.ok(open1.poll && secret.poll);
    const url = embed(urlId);
    const a = await s.open(url);
    const b = await s.open(url);
    await bothLive(a, b);
    const fruit = (page: Page) => page.getByRole('form', { name: 'Best fruit?' });
    const season = (page: Page) => page.getByRole('form', { name: 'Best season?' });
    for (const page of [a, b]) {
      await fruit(page).getByText('0 votes, 0%').first().waitFor();
      await season(page).getByText('Results are shown once you have voted.').waitFor();
    }

    // A votes with the mouse and sees the results; B sees them change live.
    await fruit(a).getByRole('radio', { name: 'Apple' }).check();
    await fruit(a).getByRole('button', { name: 'Vote', exact: true }).click();
    await fruit(a).getByText('(your vote)').waitFor();
    await fruit(a).getByText('1 votes, 100%').waitFor();
    await fruit(b).getByText('1 votes, 100%').waitFor();
    await fruit(b).getByText('1 votes', { exact: true }).waitFor();

    // The poll that needs a vote: A votes and sees its counts; B, who has not, still sees none.
    await season(a).getByRole('radio', { name: 'Winter' }).check();
    await season(a).getByRole('button', { name: 'Vote', exact: true }).click();
    await season(a).getByText('1 votes, 100%').waitFor();
    await season(a).getByText('(your vote)').waitFor();
    assert.equal(await season(b).getByText(/votes, \d+%/).count(), 0);
    assert.equal(await season(b).getByText('Results are shown once you have voted.').count(), 1);

    // B, keyboard only: into the radio group, an arrow picks Winter, Tab to Vote, Enter.
    await tabTo(b, season(b).getByRole('radio', { name: 'Summer' }));
    await b.keyboard.press('ArrowDown');
    assert.equal(await season(b).getByRole('radio', { name: 'Winter' }).isChecked(), true);
    await tabTo(b, season(b).getByRole('button', { name: 'Vote', exact: true }));
    await b.keyboard.press('Enter');
    await season(b).getByText('2 votes, 100%').waitFor();
    assert.match((await b.getByRole('status').first().textContent()) ?? '', /Your vote was saved/);
    // A, who voted, reads the new counts the channel withholds.
    await season(a).getByText('2 votes, 100%').waitFor();

    // A changes the fruit vote, then takes it back; B follows live.
    await fruit(a).getByRole('radio', { name: 'Pear' }).check();
    await fruit(a).getByRole('button', { name: 'Change my vote' }).click();
    const option = (page: Page, label: string) => fruit(page).locator('.poll-option', { hasText: label });
    await option(b, 'Pear').getByText('1 votes, 100%').waitFor();
    await option(b, 'Apple').getByText('0 votes, 0%').waitFor();
    await option(a, 'Pear').getByText('(your vote)').waitFor();
    await fruit(a).getByRole('button', { name: 'Remove my vote' }).click();
    await fruit(a).getByRole('button', { name: 'Vote', exact: true }).waitFor();
    await fruit(b).getByText('0 votes', { exact: true }).waitFor();
    const api = await s.t.api<{ poll: { totalVotes: number } }>('GET', `/api/v1/polls/${secret.commentId}`);
    assert.equal(api.body.poll.totalVotes, 2);
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`axe-core finds no serious or critical violation in the reactions and polls, ${scheme} theme`, async () => {
      const urlId = `polls-axe-${scheme}`;
      await seed(s.t, { urlId, poll: { ...pollInput(2), question: 'Tea or coffee?', options: [{ label: 'Tea' }, { label: 'Coffee' }] } });
      await seed(s.t, { urlId, poll: { ...pollInput(2), question: 'Cats or dogs?', options: [{ label: 'Cats' }, { label: 'Dogs' }], requireVoteToSeeResults: true } });
      const page = await s.open(embed(urlId), scheme);
      await reaction(page, 'Heart').click();
      await page.getByRole('button', { name: 'Heart: 1', pressed: true }).waitFor();
      const tea = page.getByRole('form', { name: 'Tea or coffee?' });
      await tea.getByRole('radio', { name: 'Tea' }).check();
      await tea.getByRole('button', { name: 'Vote', exact: true }).click();
      await tea.getByText('1 votes, 100%').waitFor();
      await page.getByRole('form', { name: 'Cats or dogs?' }).getByText('Results are shown once you have voted.').waitFor();
      const violations = [...(await seriousViolations(page, '#comments'))];
      assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));
      mkdirSync(SHOTS, { recursive: true });
      await page.locator('#comments').screenshot({ path: `${SHOTS}/polls-reactions-${scheme}.png` });
    });
  }
});
