import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { ApiError, type ErrorCode } from '../engine/errors.js';
import type { Schema } from './route.js';

// ajv-formats is CommonJS: Node hands its module.exports (callable) as the default import,
// while its type declarations describe an ES module whose `default` is the function.
const addFormats = formats.default;

/** Query strings carry only text: numbers and booleans are coerced, repeated names become arrays. */
const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: true });
/** JSON bodies are taken as typed: no coercion. */
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: true });
addFormats(queryAjv);
addFormats(bodyAjv);

export type Where = 'query' | 'body' | 'path';

/** A compiled check that throws a catalogued 400 naming the offending field. */
export type Check = (value: unknown) => void;

/**
 * Compiles a schema once, at start-up. Objects without an explicit `additionalProperties`
 * refuse unknown fields.
 */
export function compile(where: Where, schema: Schema, missingCodes: Readonly<Record<string, ErrorCode>> = {}): Check {
  const validate: ValidateFunction = (where === 'body' ? bodyAjv : queryAjv).compile(closeObjects(schema));
  return (value) => {
    if (!validate(value)) throw toApiError(where, validate.errors?.[0], missingCodes);
  };
}

function closeObjects(schema: Schema): Schema {
  if (schema['type'] !== 'object') return schema;
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
  return schema;
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
    case 'minProperties': {
      const limit = Number(error.params['limit']);
      return new ApiError('invalid-param', `${subject(where, error)} must have at least ${limit} field${limit === 1 ? '' : 's'}.`);
    }
    default:
      return new ApiError('invalid-param', `${subject(where, error)} ${error.message ?? 'is not valid'}.`);
  }
}
