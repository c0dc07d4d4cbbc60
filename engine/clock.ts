/**
 * The one source of time. Tests replace it to cross a day or month boundary without waiting.
 */
let source: () => number = Date.now;

export const clock = {
  now(): number {
    return source();
  },
  /** Replaces the time source; returns a function that restores the previous one. */
  set(fn: () => number): () => void {
    const previous = source;
    source = fn;
    return () => {
      source = previous;
    };
  },
};
