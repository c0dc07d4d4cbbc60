import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render, type RenderOutcome } from '../../../email/sandbox.js';
import { DEFINITIONS, translationsFor } from '../../../email/definitions.js';
import { renderInput } from '../../../actors/email/template-model.js';
import { extraHeaders, retryDelay } from '../../../email/delivery.js';
import { plainText } from '../../../email/plain-text.js';

const DATA = JSON.stringify({ name: 'Ann <b>', items: ['<i>a</i>', 'b'], TEXT: { HELLO: 'Hello' } });

function run(ejs: string, subject = 'S'): RenderOutcome {
  return render({ ejs, subject, data: DATA, timeoutMs: 500 });
}

function failure(outcome: RenderOutcome): Extract<RenderOutcome, { ok: false }> {
  assert.equal(outcome.ok, false, `expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome as Extract<RenderOutcome, { ok: false }>;
}

test('renders EJS: escaped and raw output, loops, TEXT, an EJS subject without HTML escaping', () => {
  const out = run('<%= TEXT.HELLO %> <%= name %>!<% for (const i of items) { %>[<%- i %>]<% } %>', 'Hi <%= name %> & co');
  assert.deepEqual(out, { ok: true, html: 'Hello Ann &lt;b&gt;![<i>a</i>][b]', subject: 'Hi Ann <b> & co' });
});

test('a syntax error names the template line; an unclosed tag is refused too', () => {
  const syntax = failure(run('one\ntwo <% if (x { %>\nthree'));
  assert.equal(syntax.failure, 'syntax-error');
  assert.equal(syntax.line, 2);
  assert.match(syntax.message, /SyntaxError/);
  assert.equal(failure(run('a <% b')).failure, 'syntax-error');
});

test('a template that throws names its line; the subject is checked too', () => {
  const thrown = failure(run('one\ntwo\n<%= missing.field %>'));
  assert.equal(thrown.failure, 'render-error');
  assert.equal(thrown.line, 3);
  assert.match(thrown.message, /ReferenceError: missing is not defined/);
  const subject = failure(run('fine', '<%= nope.x %>'));
  assert.equal(subject.part, 'subject');
});

test('no way out: process, require, timers and string-to-code are out of reach', () => {
  assert.match(failure(run('<%= process.env.HOME %>')).message, /process is not defined/);
  assert.match(failure(run('<%= require("fs") %>')).message, /require is not defined/);
  for (const escape of [
    "<%= this.constructor.constructor('return process')() %>",
    "<%= Object.getPrototypeOf(this).constructor.constructor('return process')() %>",
    "<%= items.constructor.constructor('return process')() %>",
    "<%= eval('1 + 1') %>",
  ]) {
    assert.match(failure(run(escape)).message, /EvalError/, escape);
  }
  const types = run('<%= [typeof setTimeout, typeof queueMicrotask, typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof ArrayBuffer].join() %>');
  assert.deepEqual(types, { ok: true, html: 'undefined,undefined,undefined,undefined,undefined,undefined', subject: 'S' });
});

test('a template that replaces the renderer\'s globals breaks only itself', () => {
  const out = run('<% JSON.stringify = () => 1; JSON.parse = () => 2; String = null %>x');
  assert.deepEqual(out, { ok: true, html: 'x', subject: 'S' });
  assert.deepEqual(run('<%= typeof JSON.stringify({}) %>'), { ok: true, html: 'string', subject: 'S' });
});

test('every built-in definition renders with its own test data', () => {
  for (const definition of DEFINITIONS) {
    const input = renderInput(definition, null, definition.defaultTestData, null);
    const out = render({ ...input, data: JSON.stringify(input.data), timeoutMs: 500 });
    assert.equal(out.ok, true, `${definition.emailTemplateId}: ${JSON.stringify(out)}`);
    assert.ok(out.ok && out.subject.length > 0, `${definition.emailTemplateId} has a subject`);
  }
});

test('translations: locale defaults, English when the locale has none, overrides per locale', () => {
  const definition = DEFINITIONS[0]!;
  assert.equal(translationsFor(definition, 'xx_yy', undefined)['VERIFY'], 'Confirm my comment');
  assert.equal(translationsFor(definition, 'en_us', { en_us: { VERIFY: 'Yes' } })['VERIFY'], 'Yes');
  assert.equal(translationsFor(definition, 'fr_fr', { fr_fr: { VERIFY: 'Oui' } })['VERIFY'], 'Oui');
});

test('delivery helpers: headers without line breaks or reserved names, text from HTML, doubling retries', () => {
  assert.deepEqual(extraHeaders({ 'X-Site': 'a\r\nBcc: x', From: 'evil', 'Bad Name': 'v', 'List-Unsubscribe': 'x' }), { 'X-Site': 'a Bcc: x' });
  assert.equal(plainText('<p>Hi &amp; <b>you</b></p><a href="https://x/y">go</a><script>bad()</script>'), 'Hi & you\ngo (https://x/y)');
  assert.deepEqual([1, 2, 3, 30].map((n) => retryDelay(1000, n)), [1000, 2000, 4000, 3_600_000]);
});
