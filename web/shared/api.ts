/**
 * Calls of the public API from the browser. Failures keep their honest HTTP status with an
 * `APIError` body; this reads the body so every error can be shown in words.
 */

/** A refused call: the server's `code` and `reason` (and the rest of its body). */
export class ApiFailure extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
    readonly body: Record<string, unknown>,
  ) {
    super(reason || code);
  }
}

/** Query values; undefined ones are left out. */
export type Query = Record<string, string | number | boolean | undefined | null>;

/** A client for one API host. */
export class Api {
  constructor(readonly host: string) {}

  /** Calls `path` and answers the JSON body, or throws `ApiFailure`. */
  async call<T = Record<string, any>>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
    const qs = params.toString();
    const init: RequestInit = { method, credentials: 'include' };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    let res: Response;
    try {
      res = await fetch(`${this.host}${path}${qs ? `?${qs}` : ''}`, init);
    } catch {
      throw new ApiFailure('network', '', {});
    }
    let parsed: Record<string, any> = {};
    try {
      parsed = await res.json();
    } catch {
      // A body that is not JSON is reported by status below.
    }
    if (!res.ok || parsed['status'] === 'failed') {
      throw new ApiFailure(String(parsed['code'] ?? `http-${res.status}`), String(parsed['translatedError'] ?? parsed['reason'] ?? ''), parsed);
    }
    return parsed as T;
  }
}
