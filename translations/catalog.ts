/**
 * The server's own interface strings, served by `GET /translations/{namespace}/{component}`
 * (docs/public-reader.md). One catalog per language; keys are the same in every language, and
 * a key a language lacks falls back to English.
 */

/** A component's strings, by key. */
export type Strings = Readonly<Record<string, string>>;

/** One language's strings, by widget component. */
export type Catalog = Readonly<Record<string, Strings>>;
