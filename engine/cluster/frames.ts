/**
 * The frames nodes exchange over NATS, in msgpackr (no shared record structures: each frame
 * decodes alone). Asks carry their payload as the actor would get it locally; replies carry
 * the actor's answer, or its error rebuilt on the caller's side as the same class with the same
 * fields, so that `ApiError` codes (and the few internal errors callers catch by class) survive
 * the hop unchanged.
 */
import { Packr } from 'msgpackr';
import { ApiError, type ErrorCode, type ErrorExtra, isErrorCode } from '../errors.js';
import { DuplicateKeyError, StorageUnavailableError } from '../../storage/errors.js';

const packr = new Packr({ useRecords: false, moreTypes: true });

/** Encodes any frame. */
export function pack(value: unknown): Uint8Array {
  return packr.pack(value);
}

/** Decodes any frame. */
export function unpack(data: Uint8Array): unknown {
  return packr.unpack(data);
}

/**
 * What a node asks another: `[ASK, kind, id, type, payload, timeoutMs]`, `[VIEW, kind, id,
 * name, entry]`, or `[PASSIVATE, tenantId, exceptKind, timeoutMs]` (passivate the tenant's
 * actors held there; answered with how many had to be dropped).
 */
export const FRAME = {
  ask: 1,
  view: 2,
  passivate: 3,
} as const;

/** How a node answers: `[OK, value]`, `[ERR, error]`, or `[MOVED]` (the shard is not held here: nothing ran). */
export const REPLY = {
  ok: 1,
  err: 2,
  moved: 3,
} as const;

export type AskFrame = readonly [typeof FRAME.ask, string, string, string, unknown, number];
export type ViewFrame = readonly [typeof FRAME.view, string, string, string, string];
export type PassivateFrame = readonly [typeof FRAME.passivate, string, string, number];
export type ReplyFrame = readonly [typeof REPLY.ok, unknown] | readonly [typeof REPLY.err, WireError] | readonly [typeof REPLY.moved];

/** An error as it travels: its class name, message and own fields. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

type Rebuild = (message: string, fields: Record<string, unknown>) => Error;

const rebuilders = new Map<string, Rebuild>([
  ['ApiError', (message, fields) => new ApiError(isErrorCode(String(fields['code'])) ? (fields['code'] as ErrorCode) : 'internal-error', message, fields['extra'] as ErrorExtra | undefined)],
  ['DuplicateKeyError', (_message, fields) => new DuplicateKeyError(String(fields['collection']), String(fields['index']))],
  ['StorageUnavailableError', (message) => new StorageUnavailableError(message)],
]);

/**
 * Lets errors of class `name` cross nodes as themselves (callers that catch them by class keep
 * working). Unregistered errors arrive as `internal-error`, as a bug does locally.
 */
export function registerWireError(name: string, rebuild: Rebuild): void {
  rebuilders.set(name, rebuild);
}

/** An error made ready to travel. */
export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(err)) if (typeof value !== 'function') fields[field] = value;
  if (err instanceof ApiError) {
    fields['code'] = err.code;
    fields['extra'] = err.extra;
  }
  return { name: err.name, message: err.message, fields };
}

/** The error a reply carried, as its class. */
export function fromWire(wire: WireError): Error {
  const rebuild = rebuilders.get(wire.name);
  return rebuild ? rebuild(wire.message, wire.fields) : new ApiError('internal-error');
}
