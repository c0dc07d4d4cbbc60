/**
 * Renders tenant-written EJS inside a fresh `vm` context: no `require`, no `process`, no
 * timers, no network, no string-to-code (`eval`, `Function`), no binary buffers. Runs in a
 * render worker (render-worker.ts), never on the server's main thread.
 *
 * Time: the whole render, template code and every promise callback it queues, runs inside one
 * `runInContext` with a timeout. The context's microtask queue is its own and is drained
 * within that call (`microtaskMode: 'afterEvaluate'`), so an endless promise chain is stopped
 * exactly like an endless loop. Memory is bounded by the worker's `resourceLimits`.
 *
 * Nothing crosses back from the context but one string, produced inside it: a template cannot
 * hand the host an object whose getters or prototype it controls.
 */
import vm from 'node:vm';
import ejs from 'ejs';

/** What one render needs; `data` is the JSON text of the template's locals (TEXT included). */
export interface RenderJob {
  readonly ejs: string;
  /** EJS of the subject line (usually `TEXT.SUBJECT`); rendered without HTML escaping. */
  readonly subject: string;
  readonly data: string;
  readonly timeoutMs: number;
}

/** Why a template did not render. */
export const RENDER_FAILURES = {
  syntax: 'syntax-error',
  runtime: 'render-error',
  timeout: 'timeout',
  memory: 'memory-limit',
} as const;

export type RenderFailure = (typeof RENDER_FAILURES)[keyof typeof RENDER_FAILURES];

export type RenderOutcome =
  | { readonly ok: true; readonly html: string; readonly subject: string }
  | { readonly ok: false; readonly failure: RenderFailure; readonly message: string; readonly line: number | null; readonly part: 'body' | 'subject' };

/** Largest rendered body accepted (characters). */
export const MAX_OUTPUT_CHARS = 2_000_000;

const FILENAME = 'template.ejs';

/** Built-ins removed from every context: shared memory, blocking waits, untracked buffers, wasm. */
const REMOVED_GLOBALS = [
  'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'ArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
  'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
  'FinalizationRegistry', 'WeakRef',
];

/** Runs first in every context: helpers the driver needs, saved before any template can change them. */
const PRELUDE = new vm.Script(`
(function (g) {
  var removed = ${JSON.stringify(REMOVED_GLOBALS)};
  for (var i = 0; i < removed.length; i++) delete g[removed[i]];
  var map = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };
  var replace = String.prototype.replace, toStr = String, parse = JSON.parse, stringify = JSON.stringify;
  g.__escape = function (s) { return s == undefined ? '' : replace.call(toStr(s), /[&<>'"]/g, function (c) { return map[c]; }); };
  g.__plain = function (s) { return s == undefined ? '' : toStr(s); };
  g.__fail = function (e, line, part) {
    var message;
    try { message = e instanceof Error ? toStr(e.name) + ': ' + toStr(e.message) : 'Thrown: ' + toStr(e); } catch (_) { message = 'The template threw a value that cannot be shown.'; }
    return stringify({ ok: false, failure: 'render-error', message: message, line: line, part: part });
  };
  g.__parse = parse;
  g.__stringify = stringify;
})(globalThis);
`, { filename: 'prelude.js' });

/** Calls the subject and body functions with the locals; answers one JSON string. */
const DRIVER = new vm.Script(`
(function () {
  var data = __parse(__json), subject = '', html;
  try { subject = __subjectFn(data, __plain); } catch (e) { return e && e.__ejsLine !== undefined ? __fail(e.error, e.__ejsLine, 'subject') : __fail(e, null, 'subject'); }
  try { html = __bodyFn(data, __escape); } catch (e) { return e && e.__ejsLine !== undefined ? __fail(e.error, e.__ejsLine, 'body') : __fail(e, null, 'body'); }
  return __stringify({ ok: true, html: '' + html, subject: '' + subject });
})()
`, { filename: 'driver.js' });

/** A template compiled to a script that defines its function, with where its lines begin. */
interface Compiled {
  readonly script: vm.Script;
}

/** A template that failed to compile. */
class CompileError extends Error {
  constructor(message: string, readonly line: number | null) {
    super(message);
  }
}

/** The template line a line of generated code belongs to: the last `__line = N` at or above it. */
function templateLine(generated: string, generatedLine: number): number | null {
  const lines = generated.split('\n');
  let found: number | null = null;
  for (let i = 0; i < Math.min(generatedLine, lines.length); i++) {
    const m = /__line = (\d+)/.exec(lines[i]!);
    if (m) found = Number(m[1]);
  }
  return found;
}

/**
 * The function source of a template: ejs generates the body (with `__line` markers when
 * compiled for debugging); the wrapper mirrors what ejs's own compile adds around it, and turns
 * any error into one carrying the template line it happened on.
 */
function functionSource(text: string): string {
  const template = new ejs.Template(text, { compileDebug: true, strict: false, _with: true, localsName: 'locals' });
  template.generateSource();
  return [
    '(function (locals, escapeFn) {',
    'var __line = 1, __output = "";',
    'function __append(s) { if (s !== undefined && s !== null) __output += s; }',
    'try {',
    'with (locals || {}) {',
    template.source,
    '}',
    'return __output;',
    '} catch (e) { throw { __ejsLine: __line, error: e }; }',
    '})',
  ].join('\n');
}

/** Compiles a template (ejs, then V8), or throws CompileError with the template line. */
function compile(text: string): Compiled {
  let source: string;
  try {
    source = functionSource(text);
  } catch (err) {
    throw new CompileError((err as Error).message, null);
  }
  try {
    return { script: new vm.Script(source, { filename: FILENAME }) };
  } catch (err) {
    const stackLine = /template\.ejs:(\d+)/.exec(String((err as Error).stack ?? ''));
    const line = stackLine ? templateLine(source, Number(stackLine[1])) : null;
    throw new CompileError(`${(err as Error).name}: ${(err as Error).message}`, line);
  }
}

/**
 * Compiled templates by source text: compiling is the costly part of a render. Bounded in
 * entries and in source characters, so that the cache cannot crowd a worker's small heap.
 */
const compiled = new Map<string, Compiled>();
const MAX_COMPILED = 200;
const MAX_COMPILED_CHARS = 2_000_000;
let compiledChars = 0;

function compiledOf(text: string): Compiled {
  let entry = compiled.get(text);
  if (entry === undefined) {
    entry = compile(text);
    compiled.set(text, entry);
    compiledChars += text.length;
    while (compiled.size > 1 && (compiled.size > MAX_COMPILED || compiledChars > MAX_COMPILED_CHARS)) {
      const oldest = compiled.keys().next().value!;
      compiled.delete(oldest);
      compiledChars -= oldest.length;
    }
  }
  return entry;
}

/** Renders one job in a fresh context. Never throws: every failure is an outcome. */
export function render(job: RenderJob): RenderOutcome {
  let body: Compiled;
  let subject: Compiled;
  try {
    subject = compiledOf(job.subject);
  } catch (err) {
    const e = err as CompileError;
    return { ok: false, failure: RENDER_FAILURES.syntax, message: e.message, line: e.line, part: 'subject' };
  }
  try {
    body = compiledOf(job.ejs);
  } catch (err) {
    const e = err as CompileError;
    return { ok: false, failure: RENDER_FAILURES.syntax, message: e.message, line: e.line, part: 'body' };
  }
  // A null-prototype global: the context object is a host object, and an ordinary one would
  // lead `this.constructor` in a template to the host's Function, and so to `process`.
  const global = Object.create(null) as Record<string, unknown>;
  global['__json'] = job.data;
  const context = vm.createContext(
    global,
    { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate', name: 'email-template' },
  );
  let answer: unknown;
  try {
    PRELUDE.runInContext(context);
    // Defining the functions runs no template code; the driver (under the time limit) does.
    context['__subjectFn'] = subject.script.runInContext(context);
    context['__bodyFn'] = body.script.runInContext(context);
    answer = DRIVER.runInContext(context, { timeout: job.timeoutMs });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      return { ok: false, failure: RENDER_FAILURES.timeout, message: `The template did not finish within ${job.timeoutMs} ms.`, line: null, part: 'body' };
    }
    return { ok: false, failure: RENDER_FAILURES.runtime, message: String((err as Error)?.message ?? err), line: null, part: 'body' };
  }
  return readAnswer(answer);
}

/** The driver's JSON string, checked: a template may have replaced the JSON functions. */
function readAnswer(answer: unknown): RenderOutcome {
  const broken = { ok: false, failure: RENDER_FAILURES.runtime, message: 'The template replaced the functions the renderer needs.', line: null, part: 'body' } as const;
  if (typeof answer !== 'string') return broken;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    return broken;
  }
  const p = parsed as Record<string, unknown>;
  if (p['ok'] === true && typeof p['html'] === 'string' && typeof p['subject'] === 'string') {
    if (p['html'].length > MAX_OUTPUT_CHARS) {
      return { ok: false, failure: RENDER_FAILURES.runtime, message: `The rendered email is longer than ${MAX_OUTPUT_CHARS} characters.`, line: null, part: 'body' };
    }
    return { ok: true, html: p['html'], subject: p['subject'].replace(/[\r\n]+/g, ' ').trim() };
  }
  if (p['ok'] === false && typeof p['message'] === 'string') {
    const line = typeof p['line'] === 'number' ? p['line'] : null;
    return { ok: false, failure: RENDER_FAILURES.runtime, message: p['message'], line, part: p['part'] === 'subject' ? 'subject' : 'body' };
  }
  return broken;
}
