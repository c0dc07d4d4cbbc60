/** Storage could not be reached or failed; nothing of the failed call was applied. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A write would have violated a unique index; nothing of the batch was applied. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(
    readonly collection: string,
    readonly index: string,
    options?: { cause?: unknown },
  ) {
    super(`duplicate key in ${collection} (index ${index})`, options);
  }
}
