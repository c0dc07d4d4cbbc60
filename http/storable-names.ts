/**
 * Bodies every storage can hold. MongoDB (and FerretDB) refuse field names that start with `$`
 * or contain `.` or NUL, and documents nested more than 100 levels deep, while LMDB stores
 * anything; free-form objects of a body (a comment's `meta`, a configuration's `translations`)
 * would then be accepted on one storage and fail on the other, and a failed write fails the
 * whole batch it shares with other callers' writes. So such bodies are refused at the door, the
 * same way on both. A body's objects end up a few levels down in what is stored (a comment in
 * a live event in an event-log chunk), hence a limit well under MongoDB's.
 */
import { ApiError } from '../engine/errors.js';

/** Deepest nesting of objects and arrays a body may have. */
export const MAX_BODY_DEPTH = 32;

function storable(name: string): boolean {
  return !name.startsWith('$') && !name.includes('.') && !name.includes('\u0000');
}

/**
 * Throws `invalid-param` naming the first field of `value` (a parsed JSON body) that storage
 * could not hold, or where it nests too deeply. Walks without recursion: a body may nest as
 * deep as its size allows.
 */
export function assertStorableNames(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const pending: { value: object; path: string; depth: number }[] = [{ value, path: 'body', depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, depth } = next;
    if (depth > MAX_BODY_DEPTH) throw new ApiError('invalid-param', `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep (at ${path}).`);
    if (Array.isArray(next.value)) {
      next.value.forEach((item: unknown, i) => {
        if (typeof item === 'object' && item !== null) pending.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 });
      });
      continue;
    }
    for (const [name, item] of Object.entries(next.value)) {
      if (!storable(name)) {
        throw new ApiError('invalid-param', `Field ${JSON.stringify(name)} in ${path} cannot be stored: field names may not start with "$" or contain "." or NUL.`);
      }
      if (typeof item === 'object' && item !== null) pending.push({ value: item as object, path: `${path}.${name}`, depth: depth + 1 });
    }
  }
}
