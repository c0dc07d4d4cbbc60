/**
 * HTTP load generation: wrk when it is installed (a C client that costs the machine far less
 * than the server it measures), autocannon otherwise. Both give the same result shape.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** One request of a round-robin list; unset fields fall back to the spec's defaults. */
export interface LoadRequest {
  readonly method?: string;
  /** Path and query, e.g. `/api/v1/votes?urlId=a`. */
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as is; anything else as JSON with `content-type: application/json`. */
  readonly body?: unknown;
}

/** What to drive and how hard. */
export interface LoadSpec extends LoadRequest {
  /** Origin and default path, e.g. `http://127.0.0.1:4100/api/v1/me`. */
  readonly url: string;
  /**
   * Requests cycled round-robin across all connections (wrk); with autocannon each connection
   * cycles the list from its own start. For per-request variation such as many users voting.
   */
  readonly requests?: readonly LoadRequest[];
  /**
   * wrk only: Lua defining `request()` (and optionally `init(args)`, `response(...)`), after
   * `wrk.method`, `wrk.path`, `wrk.headers` and `wrk.body` are set from this spec. It must not
   * define `done`, which reports the results. Cannot be combined with `requests`.
   */
  readonly lua?: string;
  /** Open connections (default 64). */
  readonly connections?: number;
  /** Measured seconds (default 10). */
  readonly durationSeconds?: number;
  /** A response slower than this counts as a timeout error (default 5 s). */
  readonly timeoutSeconds?: number;
  /** Default `auto`: wrk when on PATH. */
  readonly tool?: 'auto' | 'wrk' | 'autocannon';
  /** The server under load: its CPU over the measured phase is reported per request (Linux). */
  readonly serverPid?: number;
  /** autocannon only: `[<id>]` anywhere in a request (its URL too) becomes a new id per request. */
  readonly idReplacement?: boolean;
}

/** Latency distribution in milliseconds. */
export interface LatencyMs {
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** Failed requests by cause. */
export interface LoadErrors {
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly timeout: number;
  /**
   * Answers that were not a success. wrk counts status ≥ 400 (it does not parse responses
   * further unless a Lua `response` hook is defined), autocannon every status outside 2xx.
   */
  readonly non2xx: number;
  readonly total: number;
}

/** The outcome of one measured load run. */
export interface LoadResult {
  readonly tool: 'wrk' | 'autocannon';
  readonly url: string;
  readonly connections: number;
  /** Completed requests, failed ones included. */
  readonly requests: number;
  readonly durationSeconds: number;
  /** Completed requests per second, failed ones included: check `errors.total`. */
  readonly rps: number;
  readonly latencyMs: LatencyMs;
  readonly errors: LoadErrors;
  /** With `serverPid`: the server's CPU per completed request over the measured phase. */
  readonly serverCpu?: ServerCpu;
}

/** CPU a server spent per request, in microseconds. */
export interface ServerCpu {
  /** Its main (JavaScript) thread. */
  readonly mainThreadUs: number;
  /** All its threads (storage writer, garbage collector helpers, ...). */
  readonly processUs: number;
}

const DEFAULT_CONNECTIONS = 64;
const DEFAULT_DURATION_SECONDS = 10;
const DEFAULT_TIMEOUT_SECONDS = 5;
const RESULT_MARK = '@@bench-result@@';

let wrkPath: string | null | undefined;

/** wrk runs under way, so that an interrupted benchmark leaves neither processes nor scripts behind. */
const running = new Set<{ readonly child: ChildProcess; readonly dir: string }>();
let exitHookInstalled = false;

function onExit(): void {
  for (const { child, dir } of running) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The wrk executable on PATH, or undefined. */
export function findWrk(): string | undefined {
  if (wrkPath === undefined) {
    wrkPath = null;
    for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
      if (dir === '') continue;
      const candidate = join(dir, 'wrk');
      try {
        accessSync(candidate, constants.X_OK);
        wrkPath = candidate;
        break;
      } catch {
        // Not in this directory; keep looking.
      }
    }
  }
  return wrkPath ?? undefined;
}

/** Drives `spec.url` for the spec's duration and returns throughput, latency and errors. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  if (spec.lua !== undefined && spec.requests !== undefined) throw new Error('a load spec takes either lua or requests, not both');
  const tool = spec.tool ?? 'auto';
  const wrk = tool === 'autocannon' ? undefined : findWrk();
  if (tool === 'wrk' && wrk === undefined) throw new Error('wrk is not on PATH (apt-get install wrk)');
  if (wrk !== undefined) return loadWithWrk(wrk, spec);
  if (spec.lua !== undefined) throw new Error('this load needs wrk for its Lua script (apt-get install wrk)');
  return loadWithAutocannon(spec);
}

interface Resolved {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function resolveRequest(base: LoadSpec, request: LoadRequest = {}): Resolved {
  const url = new URL(base.url);
  const headers: Record<string, string> = { ...base.headers, ...request.headers };
  const rawBody = request.body !== undefined ? request.body : base.body;
  let body: string | undefined;
  if (rawBody !== undefined) {
    body = typeof rawBody === 'string' ? rawBody : JSON.stringify(rawBody);
    if (typeof rawBody !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json';
    }
  }
  return {
    method: (request.method ?? base.method ?? 'GET').toUpperCase(),
    path: request.path ?? base.path ?? `${url.pathname}${url.search}`,
    headers,
    body,
  };
}

/** A Lua string literal; control bytes are escaped as `\ddd` so nothing can end the literal early. */
function lua(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (code < 32 || code === 127) out += `\\${String(code).padStart(3, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function luaTable(headers: Readonly<Record<string, string>>): string {
  return `{ ${Object.entries(headers).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`).join(', ')} }`;
}

function luaOptional(value: string | undefined): string {
  return value === undefined ? 'nil' : lua(value);
}

/** The Lua `done` hook: the summary as one JSON line, found again by its mark. */
const DONE_LUA = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('${RESULT_MARK}{"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"meanUs":%f,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;

/** The script for one spec. A single request stays static, which wrk serves fastest. */
export function wrkScript(spec: LoadSpec): string {
  const defaults = resolveRequest(spec);
  const lines = [
    `wrk.method = ${lua(defaults.method)}`,
    `wrk.path = ${lua(defaults.path)}`,
    `wrk.headers = ${luaTable(defaults.headers)}`,
    `wrk.body = ${luaOptional(defaults.body)}`,
  ];
  if (spec.requests !== undefined) {
    if (spec.requests.length === 0) throw new Error('requests must not be empty');
    // Formatted in init, once wrk has set the Host header; one Lua state serves all connections (-t1).
    lines.push('local specs = {');
    for (const request of spec.requests) {
      const r = resolveRequest(spec, request);
      lines.push(`  { ${lua(r.method)}, ${lua(r.path)}, ${luaTable(r.headers)}, ${luaOptional(r.body)} },`);
    }
    lines.push(
      '}',
      'local formatted = {}',
      'local count = #specs',
      'local cursor = 0',
      'init = function(args)',
      '  for i = 1, count do',
      '    local s = specs[i]',
      '    formatted[i] = wrk.format(s[1], s[2], s[3], s[4])',
      '  end',
      'end',
      'request = function()',
      '  cursor = cursor % count + 1',
      '  return formatted[cursor]',
      'end',
    );
  }
  if (spec.lua !== undefined) lines.push(spec.lua);
  lines.push(DONE_LUA);
  return lines.join('\n');
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  meanUs: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
}

async function loadWithWrk(wrk: string, spec: LoadSpec): Promise<LoadResult> {
  const connections = spec.connections ?? DEFAULT_CONNECTIONS;
  const duration = spec.durationSeconds ?? DEFAULT_DURATION_SECONDS;
  const timeout = spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const scriptPath = join(dir, 'load.lua');
  try {
    writeFileSync(scriptPath, wrkScript(spec));
    const args = ['-t1', `-c${connections}`, `-d${duration}s`, `--timeout`, `${timeout}s`, '--latency', '-s', scriptPath, spec.url];
    const { stdout, stderr, code } = await run(wrk, args, dir);
    const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARK));
    if (code !== 0 || line === undefined) {
      throw new Error(`wrk failed (exit ${code}): ${args.join(' ')}\n${stdout}\n${stderr}`);
    }
    const s = JSON.parse(line.slice(RESULT_MARK.length)) as WrkSummary;
    const durationSeconds = s.durationUs / 1e6;
    const errors = { connect: s.connect, read: s.read, write: s.write, timeout: s.timeout, non2xx: s.status };
    return {
      tool: 'wrk',
      url: spec.url,
      connections,
      requests: s.requests,
      durationSeconds,
      rps: s.requests / durationSeconds,
      latencyMs: { mean: s.meanUs / 1000, p50: s.p50Us / 1000, p90: s.p90Us / 1000, p99: s.p99Us / 1000, max: s.maxUs / 1000 },
      errors: { ...errors, total: errors.connect + errors.read + errors.write + errors.timeout + errors.non2xx },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(command: string, args: readonly string[], dir: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', onExit);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const entry = { child, dir };
    running.add(entry);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (err) => {
      running.delete(entry);
      reject(err);
    });
    child.once('close', (code) => {
      running.delete(entry);
      resolve({ stdout, stderr, code });
    });
  });
}

/** The part of autocannon's options and result this module uses. */
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  workers?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: { method: string; path: string; headers: Record<string, string>; body?: string }[];
  idReplacement?: boolean;
}

interface AutocannonHistogram {
  average: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

interface AutocannonResult {
  duration: number;
  latency: AutocannonHistogram;
  requests: AutocannonHistogram & { total: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;

async function loadWithAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const connections = spec.connections ?? DEFAULT_CONNECTIONS;
  const duration = spec.durationSeconds ?? DEFAULT_DURATION_SECONDS;
  // Loaded only when needed: the usual path (wrk) should not pay for it, and it has no types.
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const defaults = resolveRequest(spec);
  const url = new URL(spec.url);
  const options: AutocannonOptions = {
    url: `${url.origin}${defaults.path}`,
    connections,
    duration,
    timeout: spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    // One worker thread, like wrk -t1: the generator must not take the main thread's time.
    workers: 1,
    method: defaults.method,
    headers: defaults.headers,
  };
  if (defaults.body !== undefined) options.body = defaults.body;
  if (spec.idReplacement === true) options.idReplacement = true;
  if (spec.requests !== undefined) {
    options.requests = spec.requests.map((request) => {
      const r = resolveRequest(spec, request);
      return r.body === undefined ? { method: r.method, path: r.path, headers: r.headers } : { method: r.method, path: r.path, headers: r.headers, body: r.body };
    });
  }
  const result = await autocannon(options);
  // autocannon's `errors` already includes its timeouts.
  const socketErrors = result.errors - result.timeouts;
  return {
    tool: 'autocannon',
    url: spec.url,
    connections,
    requests: result.requests.total,
    durationSeconds: result.duration,
    rps: result.requests.total / result.duration,
    latencyMs: { mean: result.latency.mean, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    errors: { connect: socketErrors, read: 0, write: 0, timeout: result.timeouts, non2xx: result.non2xx, total: result.errors + result.non2xx },
  };
}
