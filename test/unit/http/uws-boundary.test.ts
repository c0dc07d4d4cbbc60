/**
 * uWebSockets.js is touched by one folder only (http/uws/): its rules (copy the request before
 * any await, register onAborted, cork writes after awaits, wait for the socket to drain) are
 * kept there, so a file elsewhere importing it would bypass them. The benchmarks' own reference
 * servers (bench/) are not the product and may.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../fixtures/paths.js';

const SKIP = new Set(['node_modules', 'dist', 'bench', '.git', '.tools']);

function sources(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, found);
    else if (/\.(ts|tsx|mts)$/.test(entry.name)) found.push(path);
  }
  return found;
}

test('only http/uws/ imports uWebSockets.js', () => {
  const importers = sources(REPO_ROOT)
    .filter((file) => /from ['"]uWebSockets\.js['"]|import\(['"]uWebSockets\.js['"]\)/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(REPO_ROOT, file));
  assert.ok(importers.length > 0, 'the wrapper itself is found');
  assert.deepEqual(importers.filter((file) => !file.startsWith('http/uws/')), []);
});
