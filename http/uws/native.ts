import uWS from 'uWebSockets.js';

/**
 * Whether the native binary loaded. The package's pure-JS fallback lacks header iteration,
 * client addresses, websocket upgrades and publishing; when it is allowed, REST requests are
 * served with the headers in `FALLBACK_HEADERS` read by name, and live channels are off.
 */
export const NATIVE = String(uWS.App).includes('[native code]');

/** The headers read by name on the fallback (it cannot list them). */
export const FALLBACK_HEADERS = [
  'content-type',
  'content-length',
  'authorization',
  'x-api-key',
  'x-tenant-id',
  'origin',
  'cookie',
  'x-forwarded-for',
  'x-forwarded-proto',
  'forwarded',
  'access-control-request-headers',
  'access-control-request-method',
  'user-agent',
  'host',
] as const;

/** Decodes the ArrayBuffers uWebSockets.js hands out (addresses, messages). */
export const decoder = new TextDecoder();

/**
 * Throws unless uWebSockets.js loaded its native binary. The package silently falls back to
 * a pure-JS server many times slower; running on it by accident would be a disaster in
 * production, so it takes an explicit opt-in.
 */
export function assertNativeUws(allowFallback: boolean): void {
  if (!NATIVE && !allowFallback) {
    throw new Error(
      'uWebSockets.js fell back to its pure-JS implementation (the native binary did not load for this Node.js). ' +
        'Use Node.js 20 on glibc Linux, or set ALLOW_UWS_FALLBACK=true to run slowly anyway.',
    );
  }
}
