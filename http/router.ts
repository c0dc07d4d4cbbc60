import { ApiError } from '../engine/errors.js';

/** A route match: the route's value and its decoded path parameters. */
export interface Match<T> {
  readonly value: T;
  readonly params: Record<string, string>;
}

interface Endpoint<T> {
  readonly value: T;
  /** Parameter names in path order. Names belong to the route, so methods on one path may differ. */
  readonly names: readonly string[];
}

interface Node<T> {
  readonly statics: Map<string, Node<T>>;
  param: Node<T> | undefined;
  readonly methods: Map<string, Endpoint<T>>;
}

function node<T>(): Node<T> {
  return { statics: new Map(), param: undefined, methods: new Map() };
}

/**
 * Method and path routing. Patterns are `/api/v1/comments/:id`; a literal segment beats a
 * parameter at the same depth. Paths without parameters are found with one map lookup.
 * Parameter values are percent-decoded; a bad encoding is a 400, not a crash.
 */
export class Router<T> {
  readonly #root = node<T>();
  readonly #exact = new Map<string, Map<string, T>>();

  add(method: string, pattern: string, value: T): void {
    const segments = split(pattern);
    const names: string[] = [];
    let current = this.#root;
    for (const segment of segments) {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        current = current.param ??= node<T>();
      } else {
        let next = current.statics.get(segment);
        if (!next) current.statics.set(segment, (next = node<T>()));
        current = next;
      }
    }
    if (current.methods.has(method)) throw new Error(`route ${method} ${pattern} registered twice`);
    current.methods.set(method, { value, names });
    if (names.length === 0) {
      const key = '/' + segments.join('/');
      let byMethod = this.#exact.get(key);
      if (!byMethod) this.#exact.set(key, (byMethod = new Map()));
      byMethod.set(method, value);
    }
  }

  /**
   * Finds the route for a raw (still encoded) path. Returns undefined when no pattern matches,
   * or the methods (and routes) the path accepts when only the method is wrong.
   */
  match(method: string, rawPath: string): Match<T> | { allowed: string[]; routes: T[]; params: Record<string, string> } | undefined {
    const exact = this.#exact.get(trimSlash(rawPath))?.get(method);
    if (exact !== undefined) return { value: exact, params: {} };
    const segments = split(rawPath);
    const values: string[] = [];
    const found = this.#walk(this.#root, segments, 0, values, method);
    if (found === undefined) return undefined;
    const endpoint = found.methods.get(method);
    if (endpoint === undefined) {
      const endpoints = [...found.methods.values()];
      return { allowed: [...found.methods.keys()], routes: endpoints.map((e) => e.value), params: paramsOf(endpoints[0]!.names, values) };
    }
    return { value: endpoint.value, params: paramsOf(endpoint.names, values) };
  }

  /**
   * Depth-first, literals before parameters. Prefers a path that accepts `method`; otherwise
   * returns the first path that exists, so the caller can answer 405 with its methods.
   * `values` ends holding the parameter values of the returned path.
   */
  #walk(current: Node<T>, segments: string[], i: number, values: string[], method: string): Node<T> | undefined {
    if (i === segments.length) return current.methods.size > 0 ? current : undefined;
    const segment = segments[i]!;
    let fallback: { node: Node<T>; values: string[] } | undefined;
    const literal = current.statics.get(segment);
    if (literal) {
      const found = this.#walk(literal, segments, i + 1, values, method);
      if (found?.methods.has(method)) return found;
      if (found) fallback = { node: found, values: [...values] };
    }
    if (current.param && segment !== '') {
      const mark = values.length;
      values.push(segment);
      const found = this.#walk(current.param, segments, i + 1, values, method);
      if (found?.methods.has(method)) return found;
      if (found && !fallback) fallback = { node: found, values: [...values] };
      values.length = mark;
    }
    if (fallback) {
      values.splice(0, values.length, ...fallback.values);
      return fallback.node;
    }
    return undefined;
  }
}

function paramsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    params[name] = decodeSegment(values[i]!);
  });
  return params;
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function split(path: string): string[] {
  const trimmed = trimSlash(path);
  return trimmed === '/' ? [] : trimmed.slice(1).split('/');
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError('invalid-path-encoding', `The path segment "${segment}" is not valid percent-encoding.`);
  }
}
