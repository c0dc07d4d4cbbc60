import { ApiError } from '../engine/errors.js';

/** A parsed query: repeated names become arrays, in order of appearance. */
export type Query = Record<string, string | string[]>;

/**
 * Parses a raw query string. `+` is a space and values are percent-decoded; a repeated name
 * (`hashTag=a&hashTag=b`) yields an array, which the route's schema then accepts or refuses.
 */
export function parseQuery(raw: string): Query {
  const out: Query = Object.create(null) as Query;
  if (raw === '') return out;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const previous = out[name];
    if (previous === undefined) out[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else out[name] = [previous, value];
  }
  return out;
}

function decode(part: string): string {
  const spaced = part.includes('+') ? part.replaceAll('+', ' ') : part;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    throw new ApiError('invalid-param', `The query part "${part}" is not valid percent-encoding.`);
  }
}
