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
    // A test that hangs fails after two minutes instead of stalling the run.
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=120000', ...SUITES], {
      env,
      stdio: 'inherit',
    });
    return await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    await ferret?.destroy();
  }
}

process.exit(await main());
