/**
 * Bundles the browser widget into dist/web/ (run by `npm run build` after tsc): the loader
 * (`embed-v2.min.js`, and `embed-v2-async.min.js` which also mounts `window.fcConfigs`) and the
 * app it fetches once the element nears the viewport (`widget-app.min.js`). Minified IIFEs,
 * no source maps in the served files, so their sizes are deterministic for the budget test.
 */
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'web');
mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  legalComments: 'none',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
};

await Promise.all([
  build({ ...common, entryPoints: [join(here, 'widget', 'loader-sync.ts')], outfile: join(out, 'embed-v2.min.js') }),
  build({ ...common, entryPoints: [join(here, 'widget', 'loader-async.ts')], outfile: join(out, 'embed-v2-async.min.js') }),
  build({ ...common, entryPoints: [join(here, 'widget', 'app.tsx')], outfile: join(out, 'widget-app.min.js') }),
  // The moderation page (web/moderation/), served by the server at /auth/my-account/moderate-comments.
  build({ ...common, entryPoints: [join(here, 'moderation', 'main.tsx')], outfile: join(out, 'moderation.min.js') }),
  // The server-rendered fallback: the same components, rendered by the server (Node, ES module).
  build({ ...common, minify: false, format: 'esm', platform: 'node', target: ['node20'], entryPoints: [join(here, 'ssr', 'render.tsx')], outfile: join(out, 'ssr-render.mjs') }),
]);
