import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig, SETTINGS } from '../../../engine/config.js';
import { repoFile } from '../../fixtures/paths.js';

test('defaults', () => {
  const c = loadConfig({}, []);
  assert.equal(c.port, 8080);
  assert.equal(c.dataDir, './data');
  assert.equal(c.mongodbUri, undefined);
});

test('environment variables, and flags over them', () => {
  const c = loadConfig({ PORT: '9000', DATA_DIR: '/tmp/x', MONGODB_URI: 'mongodb://h/db' }, ['--port', '9001', '--demo-tenant=false']);
  assert.equal(c.port, 9001);
  assert.equal(c.dataDir, '/tmp/x');
  assert.equal(c.mongodbUri, 'mongodb://h/db');
  assert.equal(c.demoTenant, false);
});

test('bad values and unknown flags are refused with the setting named', () => {
  assert.throws(() => loadConfig({ PORT: 'eighty' }, []), /PORT/);
  assert.throws(() => loadConfig({}, ['--prot', '1']), /--prot/);
  assert.throws(() => loadConfig({ DEMO_TENANT: 'maybe' }, []), /DEMO_TENANT/);
});

test('every setting is documented in the README with its flag', () => {
  const readme = readFileSync(repoFile('README.md'), 'utf8');
  for (const s of Object.values(SETTINGS)) {
    assert.match(readme, new RegExp(`\`${s.env}\``), `${s.env} missing from README`);
    assert.match(readme, new RegExp(`\`${s.flag}\``), `${s.flag} missing from README`);
  }
});
