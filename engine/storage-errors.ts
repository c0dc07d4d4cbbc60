import { AmbiguousCommitError, DuplicateKeyError, FencedError, StorageUnavailableError } from '../storage/errors.js';
import { ApiError, type ErrorCode } from './errors.js';

/**
 * Maps anything thrown on the way to storage to a catalogued refusal. `fallback` names what an
 * unknown error means where it was caught: a failed commit is a storage failure, a failed
 * handler is a bug.
 */
export function toApiError(err: unknown, fallback: ErrorCode = 'internal-error'): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StorageUnavailableError) return new ApiError('storage-unavailable');
  if (err instanceof DuplicateKeyError) return new ApiError('storage-conflict');
  if (err instanceof AmbiguousCommitError) return new ApiError('timeout', 'This node lost its lease on the data while storing the change; its outcome is unknown.');
  if (err instanceof FencedError) return new ApiError('cluster-unavailable', 'This node lost its lease on the data; nothing was changed. Retry.');
  return new ApiError(fallback);
}
