/**
 * The embeddable widget in real Chromium, as readers use it: the host page on localhost, the
 * API on 127.0.0.1, third-party cookies blocked. Two readers in two browsers see each other's
 * comments, replies, votes, edits and deletions live.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WidgetScenario } from '../fixtures/widget-suite.js';

WidgetScenario.describe(`the widget with two readers`, (s) => {
  test('A posts, B sees "1 new comment", shows it and replies; A sees the reply live; votes, edits and deletions cross', async () => {
    const url = s.embed('post-1');
    const a = await s.open(url);
    const b = await s.open(url);
    for (const page of [a, b]) await page.getByText('No comments yet. Be the first!').waitFor();

    await a.getByRole('textbox', { name: 'Write a comment…' }).fill('Hello from A');
    await a.getByLabel('Your name').first().fill('Ann');
    await a.getByRole('button', { name: 'Post' }).click();
    await a.getByRole('article', { name: 'Ann' }).getByText('Hello from A').waitFor();

    // B's page does not jump: the comment waits behind a button, announced politely.
    const show = b.getByRole('button', { name: /1 new comment/ });
    await show.waitFor();
    assert.equal(await b.getByText('Hello from A').count(), 0);
    assert.match((await b.getByRole('status').textContent()) ?? '', /1 new comment/);
    await show.click();
    const annOnB = b.getByRole('article', { name: 'Ann' });
    await annOnB.getByText('Hello from A').waitFor();

    await annOnB.getByRole('button', { name: 'Reply' }).click();
    await b.getByRole('textbox', { name: 'Reply to Ann' }).fill('Welcome, Ann');
    await b.getByRole('form', { name: 'Reply to Ann' }).getByLabel('Your name').fill('Bob');
    await b.getByRole('button', { name: 'Reply', exact: true }).last().click();
    await b.getByRole('article', { name: 'Bob' }).getByText('Welcome, Ann').waitFor();

    // A: the reply waits under its parent.
    await a.getByRole('button', { name: /1 new comment/ }).click();
    await a.getByRole('article', { name: 'Bob' }).getByText('Welcome, Ann').waitFor();

    // Both readers are on the page.
    for (const page of [a, b]) await page.getByText('2 viewing').waitFor();

    // B votes A's comment up; A sees the count change in place.
    await annOnB.getByRole('button', { name: 'Vote up' }).click();
    await annOnB.getByRole('button', { name: 'Vote up', pressed: true }).waitFor();
    const annOnA = a.getByRole('article', { name: 'Ann' });
    await annOnA.getByLabel('1 votes').waitFor();
    // B withdraws the vote: back to 0 on both.
    await annOnB.getByRole('button', { name: 'Vote up' }).click();
    await annOnB.getByRole('button', { name: 'Vote up', pressed: false }).waitFor();
    await annOnA.getByLabel('0 votes').waitFor();

    // A edits its comment; B sees the new text.
    await annOnA.getByRole('button', { name: 'Edit' }).click();
    const editor = a.getByRole('textbox', { name: 'Edit your comment' });
    await editor.fill('Hello from A, edited');
    await a.getByRole('button', { name: 'Save' }).click();
    await annOnA.getByText('Hello from A, edited').waitFor();
    await annOnB.getByText('Hello from A, edited').waitFor();

    // B may not edit or delete A's comment.
    assert.equal(await annOnB.getByRole('button', { name: 'Edit' }).count(), 0);
    assert.equal(await annOnB.getByRole('button', { name: 'Delete' }).count(), 0);

    // A deletes its comment, which has a reply: both see the placeholder.
    await annOnA.getByRole('button', { name: 'Delete' }).click();
    await annOnA.getByText('This comment was deleted.').waitFor();
    await annOnB.getByText('This comment was deleted.').waitFor();
    await b.getByRole('article', { name: 'Bob' }).getByText('Welcome, Ann').waitFor();
  });
});
