/**
 * Child processes under test: the real server (`dist/main.js`), the hello-world baseline and the
 * durable-write floor.
 * Each runs in its own process so that the load generator, the server and the benchmark
 * bookkeeping never share an event loop, as in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const MAIN_JS = fileURLToPath(new URL('../../main.js', import.meta.url));
const BASELINE_JS = fileURLToPath(new URL('../baseline-server.js', import.meta.url));
const FLOOR_JS = fileURLToPath(new URL('../floor-server.js', import.meta.url));

const READY_TIMEOUT_MS = 20_000;
/** Longer than the server's default shutdown grace (15 s), so a slow drain is not cut short. */
const STOP_TIMEOUT_MS = 25_000;
const RSS_SAMPLE_MS = 250;
const KEPT_STDERR_LINES = 200;

/** The demo tenant the server creates on its first start. */
export interface DemoTenant {
  readonly tenantId: string;
  readonly apiKey: string;
  readonly apiSecret: string;
}

/** How a child process ended. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Options of `startServerProcess`. */
export interface StartServerOptions {
  /** Extra environment for the server, e.g. `{ MAILBOX_LIMIT: '50000' }`; wins over the defaults. */
  readonly env?: Readonly<Record<string, string>>;
  /** A tenant made by another server on the same storage (a further cluster node prints none). */
  readonly tenant?: DemoTenant;
  /** An LMDB directory prepared beforehand (with `tenant`, e.g. made by the command line); deleted at `stop()` like a fresh one. */
  readonly dataDir?: string;
}

/**
 * A child process listening on a loopback port. Memory is sampled from `/proc` while it runs
 * (Linux only; elsewhere the figures are undefined).
 */
export class RunningProcess {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly name: string;

  readonly #child: ChildProcess;
  readonly #exited: Promise<ExitStatus>;
  readonly #stderr: string[];
  readonly #logCounts = new Map<string, number>();
  readonly #sampler: NodeJS.Timeout;
  #peakRss: number | undefined;
  #exit: ExitStatus | undefined;

  /** Use `startServerProcess` or `startBaselineProcess`. */
  constructor(name: string, child: ChildProcess, port: number, exited: Promise<ExitStatus>, stderr: string[]) {
    this.name = name;
    this.#child = child;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.#stderr = stderr;
    this.#exited = exited.then((status) => {
      this.#exit = status;
      clearInterval(this.#sampler);
      return status;
    });
    for (const line of stderr) this.#countLog(line);
    this.#sampler = setInterval(() => this.#sampleRss(), RSS_SAMPLE_MS);
    this.#sampler.unref();
    this.#sampleRss();
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** Set once the process has exited. */
  get exit(): ExitStatus | undefined {
    return this.#exit;
  }

  /** Resident memory now, in bytes. */
  rssBytes(): number | undefined {
    if (this.#exit !== undefined) return undefined;
    try {
      const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return match ? Number(match[1]) * 1024 : undefined;
    } catch {
      // Not Linux, or the process just ended: memory is simply not reported.
      return undefined;
    }
  }

  /** Highest resident memory seen since start, in bytes. */
  get peakRssBytes(): number | undefined {
    return this.#peakRss;
  }

  /** The last lines the process wrote to stderr. */
  get stderrTail(): readonly string[] {
    return this.#stderr;
  }

  /** Structured log lines seen on stderr, counted by `level event` (e.g. `warn actor-flush-failed`). */
  get logCounts(): ReadonlyMap<string, number> {
    return this.#logCounts;
  }

  /** Sends SIGTERM and waits for the exit; SIGKILL if it does not come in time. */
  async stop(): Promise<ExitStatus> {
    if (this.#exit !== undefined) return this.#exit;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Called by the output pump for every stderr line after start-up. */
  acceptStderr(line: string): void {
    this.#stderr.push(line);
    if (this.#stderr.length > KEPT_STDERR_LINES) this.#stderr.shift();
    this.#countLog(line);
  }

  #countLog(line: string): void {
    let key = 'other stderr';
    if (line.startsWith('{')) {
      try {
        const parsed = JSON.parse(line) as { level?: unknown; event?: unknown };
        if (typeof parsed.level === 'string' && typeof parsed.event === 'string') key = `${parsed.level} ${parsed.event}`;
      } catch {
        // A partial or foreign line: counted as other output.
      }
    }
    this.#logCounts.set(key, (this.#logCounts.get(key) ?? 0) + 1);
  }

  #sampleRss(): void {
    const rss = this.rssBytes();
    if (rss !== undefined && (this.#peakRss === undefined || rss > this.#peakRss)) this.#peakRss = rss;
  }
}

/** The real server with its data directory and demo tenant. */
export class ServerProcess extends RunningProcess {
  readonly tenant: DemoTenant;
  readonly dataDir: string;

  constructor(child: ChildProcess, port: number, exited: Promise<ExitStatus>, stderr: string[], tenant: DemoTenant, dataDir: string) {
    super('server', child, port, exited, stderr);
    this.tenant = tenant;
    this.dataDir = dataDir;
  }

  /** Headers that authenticate as the demo tenant. */
  get authHeaders(): Record<string, string> {
    return { 'X-API-KEY': this.tenant.apiKey, 'X-TENANT-ID': this.tenant.tenantId };
  }

  /** Stops the server, then deletes its data directory. */
  override async stop(): Promise<ExitStatus> {
    try {
      return await super.stop();
    } finally {
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}

/** The hello-world baseline. */
export class BaselineProcess extends RunningProcess {}

/** The durable-write floor (`bench/floor-server.ts`); its data directory goes when it stops. */
export class FloorProcess extends RunningProcess {
  readonly #dataDir: string;

  constructor(child: ChildProcess, port: number, exited: Promise<ExitStatus>, stderr: string[], dataDir: string) {
    super('floor', child, port, exited, stderr);
    this.#dataDir = dataDir;
  }

  override async stop(): Promise<ExitStatus> {
    try {
      return await super.stop();
    } finally {
      rmSync(this.#dataDir, { recursive: true, force: true });
    }
  }
}

interface Started {
  child: ChildProcess;
  port: number;
  exited: Promise<ExitStatus>;
  stderr: string[];
  stdout: string[];
  attach(process: RunningProcess): void;
}

/**
 * Spawns `node script`, and resolves once stdout says `Listening on http://host:port`.
 * Output keeps being read afterwards, since a child blocked on a full pipe would stall the
 * benchmark.
 */
function spawnListening(name: string, script: string, env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  let owner: RunningProcess | undefined;
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (owner) owner.acceptStderr(line);
    else stderr.push(line);
  });
  const exited = new Promise<ExitStatus>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not say it was listening within ${READY_TIMEOUT_MS} ms\n${describeOutput(stdout, stderr)}`));
    }, READY_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (owner) return;
      stdout.push(line);
      const match = /^Listening on http:\/\/[^\s:/]+:(\d+)/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, port: Number(match[1]), exited, stderr, stdout, attach: (p) => (owner = p) });
    });
    void exited.then((status) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before listening (code ${status.code}, signal ${status.signal})\n${describeOutput(stdout, stderr)}`));
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function describeOutput(stdout: readonly string[], stderr: readonly string[]): string {
  return [`stdout:`, ...stdout.slice(-20), `stderr:`, ...stderr.slice(-20)].join('\n');
}

function demoValue(stdout: readonly string[], label: string): string {
  for (const line of stdout) {
    const match = new RegExp(`^\\s*${label}:\\s+(\\S+)`).exec(line);
    if (match) return match[1]!;
  }
  throw new Error(`the server did not print its demo ${label}; is DEMO_TENANT off or the data directory not empty?\n${stdout.join('\n')}`);
}

/**
 * Starts the real server on a free loopback port with a fresh LMDB directory, quiet logs and a
 * demo tenant. `stop()` ends it and deletes the directory.
 */
export async function startServerProcess(options: StartServerOptions = {}): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'bench-server-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DEMO_TENANT: 'true',
    // One load generator is one client: the per-client limits of public routes would measure themselves.
    PUBLIC_READ_RATE: '1000000000',
    PUBLIC_READ_BURST: '1000000000',
    PUBLIC_WRITE_RATE: '1000000000',
    PUBLIC_WRITE_BURST: '1000000000',
    ANON_SESSIONS_PER_HOUR: '1000000000',
    ANON_PAGES_PER_HOUR: '1000000000',
    ...options.env,
  };
  // An inherited MongoDB setting would silently benchmark another storage than the report says.
  if (options.env?.['MONGODB_URI'] === undefined) delete env['MONGODB_URI'];
  let started: Started;
  try {
    started = await spawnListening('server', MAIN_JS, env);
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  try {
    const tenant = options.tenant ?? {
      tenantId: demoValue(started.stdout, 'tenantId'),
      apiKey: demoValue(started.stdout, 'apiKey'),
      apiSecret: demoValue(started.stdout, 'apiSecret'),
    };
    const server = new ServerProcess(started.child, started.port, started.exited, started.stderr, tenant, dataDir);
    started.attach(server);
    return server;
  } catch (err) {
    started.child.kill('SIGKILL');
    await started.exited;
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** Starts the hello-world baseline on a free loopback port. */
export async function startBaselineProcess(): Promise<BaselineProcess> {
  const started = await spawnListening('baseline', BASELINE_JS, { ...process.env });
  const baseline = new BaselineProcess('baseline', started.child, started.port, started.exited, started.stderr);
  started.attach(baseline);
  return baseline;
}

/**
 * Starts another bare comparison server (a compiled script of `dist/bench/`, named relative to
 * it) with arguments, on a free loopback port. The caller stops it.
 */
export async function startComparisonProcess(name: string, script: string, args: readonly string[] = []): Promise<BaselineProcess> {
  const path = fileURLToPath(new URL(`../${script}`, import.meta.url));
  const started = await spawnListening(name, path, { ...process.env }, args);
  const comparison = new BaselineProcess(name, started.child, started.port, started.exited, started.stderr);
  started.attach(comparison);
  return comparison;
}

/** Starts the durable-write floor on a free loopback port, with a fresh LMDB directory under `$TMPDIR`. */
export async function startFloorProcess(): Promise<FloorProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  let started: Started;
  try {
    started = await spawnListening('floor', FLOOR_JS, { ...process.env }, [dataDir]);
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const floor = new FloorProcess(started.child, started.port, started.exited, started.stderr, dataDir);
  started.attach(floor);
  return floor;
}
