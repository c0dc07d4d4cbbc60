/**
 * The door every parsed JSON value from a client passes (request bodies, the `sso` payload):
 * whatever storage cannot hold exactly, or holds differently on LMDB and MongoDB, is refused
 * here with a 4xx, before it reaches an actor. A value refused later, at commit, would fail the
 * whole batch it shares with other callers' writes, and be answered 503 "retry later" although
 * no retry could ever succeed.
 *
 * - Strings (values and field names) must be well-formed Unicode: a lone surrogate cannot be
 *   encoded as UTF-8, so storage would keep a different string than the one acknowledged (an
 *   index and its document disagreeing, a urlId that collides with another).
 * - Numbers must be finite: JSON.parse turns `1e309` into Infinity.
 * - Field names must not start with `$` nor contain `.` or NUL (MongoDB refuses them).
 * - An array may not hold an array directly (`[[1], []]`): MongoDB-compatible servers such as
 *   FerretDB refuse nested arrays, and a value must be storable on every supported storage.
 * - Objects may hold at most `MAX_OBJECT_KEYS` fields (the embedded store's encoder stops at
 *   65,535) and nest at most `MAX_BODY_DEPTH` levels (a body's objects end up a few levels
 *   down in what is stored: a comment in a live event in an event-log chunk).
 */
import { ApiError } from '../engine/errors.js';

/** Deepest nesting of objects and arrays a body may have. */
export const MAX_BODY_DEPTH = 32;
/** Most fields one object of a body may have. */
export const MAX_OBJECT_KEYS = 10_000;

function storableName(name: string): boolean {
  return !name.startsWith('$') && !name.includes('.') && !name.includes('\u0000');
}

function checkString(text: string, path: string, what: string): void {
  if (!text.isWellFormed()) {
    throw new ApiError('invalid-unicode', `${what} at ${path} is not well-formed Unicode (it holds a lone surrogate).`);
  }
}

/**
 * Throws a 4xx naming the first place in `value` (a parsed JSON value) that storage could not
 * hold exactly. `root` names the value in messages (`body`, `sso`). Walks without recursion:
 * a value may nest as deep as its size allows.
 */
export function assertStorable(value: unknown, root = 'body'): void {
  if (typeof value === 'string') {
    checkString(value, root, 'The value');
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ApiError('invalid-param', `The number at ${root} is out of range.`);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const pending: { value: object; path: string; depth: number }[] = [{ value, path: root, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, depth } = next;
    if (depth > MAX_BODY_DEPTH) throw new ApiError('invalid-param', `The ${root} nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep (at ${path}).`);
    if (Array.isArray(next.value)) {
      const items = next.value as unknown[];
      for (let i = 0; i < items.length; i++) {
        if (Array.isArray(items[i])) throw new ApiError('invalid-param', `The ${root} holds an array directly inside an array (at ${path}[${i}]), which storage cannot hold: wrap it in an object.`);
        visit(items[i], `${path}[${i}]`, depth, pending);
      }
      continue;
    }
    let keys = 0;
    for (const name in next.value) {
      if (++keys > MAX_OBJECT_KEYS) throw new ApiError('field-too-large', `The object at ${path} has more than ${MAX_OBJECT_KEYS} fields.`);
      checkString(name, path, `A field name`);
      if (!storableName(name)) {
        throw new ApiError('invalid-param', `Field ${JSON.stringify(name)} in ${path} cannot be stored: field names may not start with "$" or contain "." or NUL.`);
      }
      visit((next.value as Record<string, unknown>)[name], `${path}.${name}`, depth, pending);
    }
  }
}

function visit(item: unknown, path: string, depth: number, pending: { value: object; path: string; depth: number }[]): void {
  switch (typeof item) {
    case 'string':
      checkString(item, path, 'The text');
      return;
    case 'number':
      if (!Number.isFinite(item)) throw new ApiError('invalid-param', `The number at ${path} is out of range.`);
      return;
    case 'object':
      if (item !== null) pending.push({ value: item, path, depth: depth + 1 });
      return;
    default:
      return;
  }
}
