import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { isHttpUrl, isImageSrc } from '../actors/text-rules.js';
import { ApiError, type ErrorCode } from '../engine/errors.js';
import type { Schema } from './route.js';

// ajv-formats is CommonJS: Node hands its module.exports (callable) as the default import,
// while its type declarations describe an ES module whose `default` is the function.
const addFormats = formats.default;

/** Query strings carry only text: numbers and booleans are coerced, repeated names become arrays. */
const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: true });
/** JSON bodies are taken as typed: no coercion. Union types let a date be ms or an ISO string. */
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: true, allowUnionTypes: true });
addFormats(queryAjv);
addFormats(bodyAjv);
/** Link fields: `http-url` for what a link points to, `image-src` for images (also root-relative paths). */
const LINK_FORMATS = { 'http-url': isHttpUrl, 'image-src': isImageSrc } as const;
for (const ajv of [queryAjv, bodyAjv]) for (const [name, check] of Object.entries(LINK_FORMATS)) ajv.addFormat(name, check);

export type Where = 'query' | 'body' | 'path';

/** A compiled check that throws a catalogued 400 naming the offending field. */
export type Check = (value: unknown) => void;

/**
 * `freeForm: {maxBytes, maxKeys}` on a free-form field (an object or array whose contents no
 * schema describes, such as a comment's `meta`): its JSON may be at most `maxBytes` long and
 * hold at most `maxKeys` field names, counted at every depth. Refused with `field-too-large`.
 */
const FREE_FORM = 'freeForm';
for (const ajv of [queryAjv, bodyAjv]) {
  ajv.addKeyword({
    keyword: FREE_FORM,
    schemaType: 'object',
    errors: true,
    validate: function check(limits: { maxBytes: number; maxKeys: number }, data: unknown): boolean {
      const size = measure(data);
      if (size.bytes <= limits.maxBytes && size.keys <= limits.maxKeys) return true;
      (check as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: FREE_FORM, message: `must be at most ${limits.maxBytes} bytes of JSON with at most ${limits.maxKeys} field names`, params: limits },
      ];
      return false;
    },
  });
}

/** The JSON size (UTF-8 bytes) and the number of field names of a value, at every depth. */
function measure(value: unknown): { bytes: number; keys: number } {
  let keys = 0;
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    for (const name in next) {
      keys++;
      pending.push((next as Record<string, unknown>)[name]);
    }
  }
  return { bytes: Buffer.byteLength(JSON.stringify(value) ?? ''), keys };
}

/** A free-form field's schema: `base` bounded by size and field names (see `FREE_FORM`). */
export function freeForm(base: Schema, maxBytes: number, maxKeys: number): Schema {
  return { ...base, [FREE_FORM]: { maxBytes, maxKeys } };
}

/** How a number of a query must be written: decimal digits, optionally signed, with a fraction for `number`. */
const DECIMAL_INTEGER = /^[+-]?\d{1,16}$/;
const DECIMAL_NUMBER = /^[+-]?\d{1,16}(?:\.\d{1,16})?$/;

/**
 * Fields of a query schema that are numbers (or lists of numbers), with the form their text
 * must have. ajv's coercion takes any text `Number` takes: `1e309` (Infinity, which passes an
 * integer check), `0x10`, `1e3`, `Infinity`.
 */
function numericFields(schema: Schema): [name: string, integer: boolean][] {
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const out: [string, boolean][] = [];
  for (const [name, property] of Object.entries(properties)) {
    const items = property['type'] === 'array' ? (property['items'] as Schema | undefined) : property;
    const types = ([] as unknown[]).concat(items?.['type'] ?? []);
    if (types.includes('integer')) out.push([name, true]);
    else if (types.includes('number')) out.push([name, false]);
  }
  return out;
}

function checkQueryNumbers(fields: readonly [string, boolean][], value: unknown): void {
  const query = value as Record<string, unknown>;
  for (const [name, integer] of fields) {
    const given = query[name];
    if (given === undefined) continue;
    for (const text of Array.isArray(given) ? given : [given]) {
      if (typeof text !== 'string') continue;
      if (!(integer ? DECIMAL_INTEGER : DECIMAL_NUMBER).test(text) || !Number.isSafeInteger(Math.trunc(Number(text)))) {
        throw new ApiError('invalid-param', `Field "${name}" in the query must be ${integer ? 'an integer' : 'a number'} written in decimal digits, within ±${Number.MAX_SAFE_INTEGER}.`);
      }
    }
  }
}

/**
 * Compiles a schema once, at start-up. Objects without an explicit `additionalProperties`
 * refuse unknown fields; integers without bounds are bounded to the safe range.
 */
export function compile(where: Where, schema: Schema, missingCodes: Readonly<Record<string, ErrorCode>> = {}): Check {
  const prepared = closeObjects(schema);
  const validate: ValidateFunction = (where === 'body' ? bodyAjv : queryAjv).compile(prepared);
  const numbers = where === 'body' ? [] : numericFields(prepared);
  return (value) => {
    if (numbers.length > 0 && typeof value === 'object' && value !== null) checkQueryNumbers(numbers, value);
    if (!validate(value)) throw toApiError(where, validate.errors?.[0], missingCodes);
  };
}

/** An integer schema bounded to the safe range where it names no bound of its own. */
function boundInteger(schema: Schema): Schema {
  const types = ([] as unknown[]).concat(schema['type'] ?? []);
  if (!types.includes('integer')) return schema;
  const bounded = { ...schema };
  if (bounded['minimum'] === undefined && bounded['exclusiveMinimum'] === undefined) bounded['minimum'] = -Number.MAX_SAFE_INTEGER;
  if (bounded['maximum'] === undefined && bounded['exclusiveMaximum'] === undefined) bounded['maximum'] = Number.MAX_SAFE_INTEGER;
  return bounded;
}

function closeObjects(schema: Schema): Schema {
  if (schema['type'] !== 'object') return boundInteger(schema);
  const properties = schema['properties'] as Record<string, Schema> | undefined;
  const closed: Schema = { ...schema };
  if (closed['additionalProperties'] === undefined && closed['patternProperties'] === undefined) closed['additionalProperties'] = false;
  if (properties) {
    closed['properties'] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, closeNested(v)]));
  }
  return closed;
}

function closeNested(schema: Schema): Schema {
  if (schema['type'] === 'object') return closeObjects(schema);
  if (schema['type'] === 'array' && schema['items'] && typeof schema['items'] === 'object') {
    return { ...schema, items: closeNested(schema['items'] as Schema) };
  }
  return boundInteger(schema);
}

function fieldName(where: Where, error: ErrorObject, extra?: string): string {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const name = [path, extra].filter(Boolean).join('.');
  return name === '' ? `the ${where}` : `"${name}" in the ${where}`;
}

/** "Field "x" in the body" for a field, "The body" for the whole of it. */
function subject(where: Where, error: ErrorObject): string {
  return error.instancePath === '' ? `The ${where}` : `Field ${fieldName(where, error)}`;
}

function toApiError(where: Where, error: ErrorObject | undefined, missingCodes: Readonly<Record<string, ErrorCode>>): ApiError {
  if (error === undefined) return new ApiError('invalid-param', `The ${where} is not valid.`);
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = fieldName(where, error, String(error.params['additionalProperty']));
      return new ApiError('unexpected-param', `Unexpected field ${field}.`);
    }
    case 'required': {
      const missing = String(error.params['missingProperty']);
      const code = error.instancePath === '' ? missingCodes[missing] : undefined;
      return new ApiError(code ?? 'missing-param', `Missing field ${fieldName(where, error, missing)}.`);
    }
    case 'type':
      return new ApiError('invalid-param', `${subject(where, error)} must be ${String(error.params['type'])}.`);
    case 'format':
      if (Object.hasOwn(LINK_FORMATS, String(error.params['format']))) {
        const what = error.params['format'] === 'image-src' ? 'an http(s) URL or a path starting with /' : 'an absolute http(s) URL';
        return new ApiError('invalid-url', `${subject(where, error)} must be ${what}.`);
      }
      return new ApiError('invalid-param', `${subject(where, error)} ${error.message ?? 'is not valid'}.`);
    case FREE_FORM:
    case 'maxProperties':
      return new ApiError('field-too-large', `${subject(where, error)} ${error.message ?? 'is too large'}.`);
    case 'minProperties': {
      const limit = Number(error.params['limit']);
      return new ApiError('invalid-param', `${subject(where, error)} must have at least ${limit} field${limit === 1 ? '' : 's'}.`);
    }
    default:
      return new ApiError('invalid-param', `${subject(where, error)} ${error.message ?? 'is not valid'}.`);
  }
}
