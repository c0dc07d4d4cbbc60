/**
 * Binary key encoding for the LMDB adapter.
 *
 * Keys compare byte-wise in LMDB, so every value is encoded so that byte order equals the
 * canonical value order of `query.ts` (null < numbers < strings < objects < arrays < booleans).
 * ordered-binary (lmdb-js's own key format) puts booleans before numbers, hence this format.
 *
 * A component is a type byte, a payload, and a 0x00 terminator. String payloads are UTF-8 with
 * 0x00 and 0x01 escaped, so a terminator can never appear inside one; numbers are 8 fixed bytes.
 *
 * LMDB keys are limited to 1978 bytes. Long strings are cut to a fixed number of UTF-16 units:
 * two cut values that differ still compare like the full values, and values whose cut forms are
 * equal are re-ordered in memory by the caller (see `lmdb-query.ts`). Where a key must stay
 * unique despite the cut (document keys, unique index keys) a 16-byte SHA-256 prefix of the full
 * value is appended.
 */
import { createHash } from 'node:crypto';

/** Type bytes, in the canonical type order. */
export const TYPE_NULL = 0x05;
export const TYPE_NUMBER = 0x10;
export const TYPE_STRING = 0x20;
export const TYPE_OBJECT = 0x30;
export const TYPE_ARRAY = 0x40;
export const TYPE_FALSE = 0x50;
export const TYPE_TRUE = 0x51;

/** LMDB's limit with lmdb-js's default 4 KB pages, minus a safety margin. */
const MAX_KEY_BYTES = 1978 - 20;
/** Ids longer than this many UTF-16 units are cut (and hashed) inside keys. */
const ID_UNITS = 200;
const HASH_BYTES = 16;
const MAX_ID_BYTES = 1 + 3 * (ID_UNITS + 1) + 1 + HASH_BYTES;

const scratch = Buffer.allocUnsafe(16384);
const numberView = new DataView(new ArrayBuffer(8));

/** How many UTF-16 units of a string value fit in a key of an index with this many fields. */
export function unitsPerValue(fieldCount: number): number {
  return Math.floor((MAX_KEY_BYTES - MAX_ID_BYTES) / Math.max(1, fieldCount) / 3) - 3;
}

/** The string cut to `units` UTF-16 units, never splitting a surrogate pair. */
function cut(value: string, units: number): string {
  const code = value.charCodeAt(units - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? units + 1 : units);
}

function hash(value: string): Buffer {
  return createHash('sha256').update(value).digest().subarray(0, HASH_BYTES);
}

/** Writes UTF-8 with 0x00 → 01 01 and 0x01 → 01 02; returns the end offset. */
function writeEscaped(target: Buffer, offset: number, value: string): number {
  const written = target.write(value, offset, 'utf8');
  const end = offset + written;
  let needsEscape = false;
  for (let i = offset; i < end; i++) {
    if (target[i]! < 2) {
      needsEscape = true;
      break;
    }
  }
  if (!needsEscape) return end;
  const raw = Buffer.from(value, 'utf8');
  let position = offset;
  for (const byte of raw) {
    if (byte < 2) {
      target[position++] = 1;
      target[position++] = byte + 1;
    } else target[position++] = byte;
  }
  return position;
}

/**
 * Writes one component; returns the end offset, negated when the value had to be cut (so the
 * caller learns both without allocating).
 */
function writeComponent(target: Buffer, offset: number, value: unknown, units: number): number {
  let position = offset;
  let wasCut = false;
  switch (typeof value) {
    case 'number': {
      target[position++] = TYPE_NUMBER;
      numberView.setFloat64(0, value === 0 ? 0 : value);
      const negative = numberView.getUint8(0) >= 0x80;
      for (let i = 0; i < 8; i++) {
        const byte = numberView.getUint8(i);
        target[position++] = negative ? ~byte & 0xff : i === 0 ? byte ^ 0x80 : byte;
      }
      break;
    }
    case 'string': {
      target[position++] = TYPE_STRING;
      wasCut = value.length > units;
      position = writeEscaped(target, position, wasCut ? cut(value, units) : value);
      break;
    }
    case 'boolean':
      target[position++] = value ? TYPE_TRUE : TYPE_FALSE;
      break;
    case 'object':
      target[position++] = value === null ? TYPE_NULL : Array.isArray(value) ? TYPE_ARRAY : TYPE_OBJECT;
      break;
    default:
      target[position++] = TYPE_NULL;
  }
  target[position++] = 0;
  return wasCut ? -position : position;
}

/**
 * The key of a document in its collection's database: a type byte (LMDB refuses empty keys,
 * and `''` is a valid id), the escaped id, and for long ids 0x00 plus a hash of the full id.
 */
export function idKey(id: string): Buffer {
  scratch[0] = TYPE_STRING;
  if (id.length <= ID_UNITS) {
    const end = writeEscaped(scratch, 1, id);
    return Buffer.from(scratch.subarray(0, end));
  }
  let end = writeEscaped(scratch, 1, cut(id, ID_UNITS));
  scratch[end++] = 0;
  end += hash(id).copy(scratch, end);
  return Buffer.from(scratch.subarray(0, end));
}

/** The part of a document key that orders like the id (everything before the hash). */
export function idKeyOrderPart(key: Buffer, start = 0): Buffer {
  const separator = key.indexOf(0, start);
  return separator < 0 ? key.subarray(start) : key.subarray(start, separator);
}

/** Plain index entry: components of the tuple, then the document key. */
export function plainIndexKey(tuple: readonly unknown[], docKey: Buffer, units: number): Buffer {
  let end = 0;
  for (const value of tuple) end = Math.abs(writeComponent(scratch, end, value, units));
  end += docKey.copy(scratch, end);
  return Buffer.from(scratch.subarray(0, end));
}

/** Unique index entry: components of the tuple, plus a hash of the tuple if a value was cut. */
export function uniqueIndexKey(tuple: readonly unknown[], units: number): Buffer {
  let end = 0;
  let wasCut = false;
  for (const value of tuple) {
    const result = writeComponent(scratch, end, value, units);
    if (result < 0) wasCut = true;
    end = Math.abs(result);
  }
  if (wasCut) end += hash(JSON.stringify(tuple)).copy(scratch, end);
  return Buffer.from(scratch.subarray(0, end));
}

/** Encodes a run of components (an equality prefix or a bound). */
export function componentsKey(values: readonly unknown[], units: number): { key: Buffer; cut: boolean } {
  let end = 0;
  let wasCut = false;
  for (const value of values) {
    const result = writeComponent(scratch, end, value, units);
    if (result < 0) wasCut = true;
    end = Math.abs(result);
  }
  return { key: Buffer.from(scratch.subarray(0, end)), cut: wasCut };
}

/** A bound for `_id` ranges, encoded like document keys but without hash. */
export function idBound(id: string): { key: Buffer; cut: boolean } {
  const wasCut = id.length > ID_UNITS;
  scratch[0] = TYPE_STRING;
  const end = writeEscaped(scratch, 1, wasCut ? cut(id, ID_UNITS) : id);
  return { key: Buffer.from(scratch.subarray(0, end)), cut: wasCut };
}

/** Offset just past the component starting at `offset`. */
export function skipComponent(key: Buffer, offset: number): number {
  const type = key[offset]!;
  if (type === TYPE_NUMBER) return offset + 10;
  if (type === TYPE_STRING) return key.indexOf(0, offset + 1) + 1;
  return offset + 2;
}

/** The first-byte range [start, end) shared by all values of the type bracket of `value`. */
export function typeBracket(value: unknown): readonly [number, number] {
  switch (typeof value) {
    case 'number':
      return [TYPE_NUMBER, TYPE_NUMBER + 1];
    case 'string':
      return [TYPE_STRING, TYPE_STRING + 1];
    case 'boolean':
      return [TYPE_FALSE, TYPE_TRUE + 1];
    default:
      return [TYPE_NULL, TYPE_NULL + 1];
  }
}

/** The smallest key greater than every key that starts with `prefix`. */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0xff, 0xff, 0xff, 0xff]);
}
