/**
 * The widget's size budget, gzipped: the loader at most 3 KB (every page that embeds the widget
 * pays it), the loader, the app and its styles at most 35 KB. Sizes of a build are
 * deterministic, so this is not a timing test; it fails when a change outgrows the budget.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { repoFile } from '../fixtures/paths.js';

const LOADER_BUDGET = 3 * 1024;
const TOTAL_BUDGET = 35 * 1024;

const gzipped = (file: string): number => gzipSync(readFileSync(repoFile(`dist/web/${file}`)), { level: 9 }).length;

test('the widget loader and app stay within their gzipped size budget', () => {
  // The styles are bundled into the app (they are set in its shadow root).
  const loader = Math.max(gzipped('embed-v2.min.js'), gzipped('embed-v2-async.min.js'));
  const app = gzipped('widget-app.min.js');
  assert.ok(loader <= LOADER_BUDGET, `loader ${loader} B gzipped > ${LOADER_BUDGET} B`);
  assert.ok(loader + app <= TOTAL_BUDGET, `loader + app ${loader + app} B gzipped > ${TOTAL_BUDGET} B`);
  assert.match(readFileSync(repoFile('dist/web/widget-app.min.js'), 'utf8'), /prefers-color-scheme|--accent/, 'the styles are in the app bundle');
});

/** The moderation page's bundle (web/moderation/), gzipped: one page moderators load, styles included. */
const MODERATION_BUDGET = 20 * 1024;

test('the moderation page bundle stays within its gzipped size budget', () => {
  const size = gzipped('moderation.min.js');
  assert.ok(size <= MODERATION_BUDGET, `moderation page ${size} B gzipped > ${MODERATION_BUDGET} B`);
  assert.match(readFileSync(repoFile('dist/web/moderation.min.js'), 'utf8'), /moderation-queued/, 'the bundle is the moderation page');
});
