/**
 * Classification of MongoDB driver errors into the port's error vocabulary.
 */
import {
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { StorageUnavailableError } from './errors.js';

/** Server codes meaning "not now" (shutdown, stepdown, time limits), not "never". */
const TRANSIENT_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** True for E11000, whether it comes from a single write or a bulk write. */
export function isDuplicateKeyError(error: unknown): boolean {
  if (!(error instanceof MongoError)) return false;
  // FerretDB's SQLite backend reports a unique violation by an update as a generic error.
  return error.code === 11000 || error.code === 11001 || error.message.includes('UNIQUE constraint failed');
}

/** A socket-level failure (EPIPE, ECONNRESET, ...) that the driver sometimes passes on unwrapped. */
function isSystemError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/** True when the failure says the server could not be reached or did not answer in time. */
export function isUnavailableError(error: unknown): boolean {
  if (error instanceof StorageUnavailableError || isSystemError(error)) return true;
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoWriteConcernError
  ) {
    return true;
  }
  if (error instanceof MongoServerError) return typeof error.code === 'number' && TRANSIENT_CODES.has(error.code);
  return error instanceof MongoError && error.name === 'MongoClientClosedError';
}

/**
 * True when a failed write may still have reached the server (the request may have been sent
 * before the connection broke), as opposed to a refusal that proves nothing was written.
 */
export function isAmbiguousWriteError(error: unknown): boolean {
  return error instanceof MongoNetworkError || error instanceof MongoOperationTimeoutError || isSystemError(error);
}

/** StorageUnavailableError for reachability failures; anything else is returned unchanged. */
export function toStorageError(error: unknown, what: string): unknown {
  if (error instanceof StorageUnavailableError) return error;
  if (isUnavailableError(error)) return new StorageUnavailableError(`MongoDB unavailable during ${what}`, { cause: error });
  return error;
}
