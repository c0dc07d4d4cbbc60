/**
 * Runs the whole suite: unit, storage conformance, integration. The MongoDB half runs against
 * MONGODB_URI when set, otherwise against a FerretDB started here for the duration of the run.
 * Under CI=true a missing MongoDB is a failure, never a silent skip.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ferretdbBinary, startFerretDb, type FerretDbServer } from './fixtures/ferretdb.js';
import { REPO_ROOT } from './fixtures/paths.js';

const SUITES = ['unit', 'storage', 'integration'].map((dir) => join(REPO_ROOT, 'dist', 'test', dir));
/**
 * Tests that start several server processes, NATS and load at once (cluster mode, storage
 * claims) run after the rest, one file at a time, so they never starve the tests beside them.
 */
const CLUSTER_SUITE = join(REPO_ROOT, 'dist', 'test', 'cluster');

function runTests(env: NodeJS.ProcessEnv, concurrency: number, paths: string[]): Promise<number> {
  // A test that hangs fails after two minutes instead of stalling the run.
  const child = spawn(process.execPath, ['--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, '--test-timeout=120000', ...paths], {
    env,
    stdio: 'inherit',
  });
  return new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  let ferret: FerretDbServer | undefined;
  if (env['MONGODB_URI']) {
    process.stdout.write(`MongoDB tests use MONGODB_URI=${env['MONGODB_URI']}\n`);
  } else if (ferretdbBinary()) {
    ferret = await startFerretDb();
    env['MONGODB_URI'] = ferret.uri;
    process.stdout.write(`MongoDB tests use FerretDB (${ferretdbBinary()}) at ${ferret.uri}\n`);
  } else if (env['CI'] === 'true') {
    process.stderr.write('CI needs MongoDB: set MONGODB_URI or build FerretDB with `bash .ci/install-ferretdb.sh`.\n');
    return 1;
  } else {
    process.stdout.write('MongoDB tests NOT run: no MONGODB_URI and no FerretDB (build it with `bash .ci/install-ferretdb.sh`).\n');
  }
  try {
    const main = await runTests(env, 2, SUITES);
    const cluster = await runTests(env, 1, [CLUSTER_SUITE]);
    return main !== 0 ? main : cluster;
  } finally {
    await ferret?.destroy();
  }
}

process.exit(await main());
