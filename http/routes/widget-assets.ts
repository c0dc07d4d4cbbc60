import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../../engine/errors.js';
import { CustomReply, route, type Schema } from '../route.js';

/** The widget's bundles, built by `npm run build` (web/build.mjs) into dist/web/. */
const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

/** The served names: the FastComments script names, the app the loader fetches, and the moderation page's bundle. */
export const WIDGET_FILES = ['embed-v2.min.js', 'embed-v2-async.min.js', 'widget-app.min.js', 'moderation.min.js'] as const;

const FILE_PARAM: Schema = {
  type: 'object',
  properties: { file: { type: 'string', minLength: 1, maxLength: 100 } },
  required: ['file'],
};

/** Read once per process: the files change only with a new build, and a new build restarts the server. */
const cache = new Map<string, Promise<Buffer>>();

function load(file: string): Promise<Buffer> {
  let pending = cache.get(file);
  if (!pending) {
    pending = readFile(WEB_DIR + file);
    pending.catch(() => cache.delete(file));
    cache.set(file, pending);
  }
  return pending;
}

/**
 * `GET /js/:file`: the embeddable widget (docs/widget.md). Script tags load it cross-site
 * without credentials, so it is open to every page; the API calls it then makes are checked
 * against the tenant's sites as usual. Cached for five minutes: the names are stable across
 * versions, as the FastComments snippets expect.
 */
export const widgetAssetRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/js/:file',
    access: 'open',
    // Refusals as JSON (`not-found`): a script tag shows nothing either way.
    params: FILE_PARAM,
    handle: async ({ params }) => {
      const file = params['file']!;
      if (!(WIDGET_FILES as readonly string[]).includes(file)) throw new ApiError('not-found', 'No such widget file.');
      let body: Buffer;
      try {
        body = await load(file);
      } catch {
        throw new ApiError('not-found', 'The widget is not built: run `npm run build`.');
      }
      return new CustomReply(200, body, 'application/javascript; charset=utf-8', [
        ['cache-control', 'public, max-age=300'],
        ['x-content-type-options', 'nosniff'],
        ['access-control-allow-origin', '*'],
      ]);
    },
  }),
];
