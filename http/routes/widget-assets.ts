import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../../engine/errors.js';
import { chooseVariant, encodeAll, type Encoded, noneMatch } from '../content-encoding.js';
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

/**
 * Read and compressed once per process, from start-up (see below): the files change only with
 * a new build, and a new build restarts the server.
 */
const cache = new Map<string, Promise<Encoded>>();

function load(file: string): Promise<Encoded> {
  let pending = cache.get(file);
  if (!pending) {
    pending = readFile(WEB_DIR + file).then((bytes) => encodeAll(bytes));
    pending.catch(() => cache.delete(file));
    cache.set(file, pending);
  }
  return pending;
}

// Compressed as the server starts (off the event loop), so that no reader waits on brotli's
// highest level; a file missing now (not built yet) is tried again on its first request.
for (const file of WIDGET_FILES) load(file).catch(() => undefined);

/**
 * Five minutes: the names are stable across versions, as the FastComments snippets expect, so
 * a longer life would keep an old widget after an upgrade; past it, the ETag makes the check a
 * 304 without the bytes.
 */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * `GET /js/:file`: the embeddable widget (docs/widget.md). Script tags load it cross-site
 * without credentials, so it is open to every page; the API calls it then makes are checked
 * against the tenant's sites as usual. Sent brotli- or gzip-compressed when the client takes
 * it (`Accept-Encoding`), with a strong ETag per encoding and 304 on `If-None-Match`.
 */
export const widgetAssetRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/js/:file',
    access: 'open',
    // Refusals as JSON (`not-found`): a script tag shows nothing either way.
    params: FILE_PARAM,
    handle: async ({ params, headers }) => {
      const file = params['file']!;
      if (!(WIDGET_FILES as readonly string[]).includes(file)) throw new ApiError('not-found', 'No such widget file.');
      let encoded: Encoded;
      try {
        encoded = await load(file);
      } catch {
        throw new ApiError('not-found', 'The widget is not built: run `npm run build`.');
      }
      const variant = chooseVariant(encoded, headers['accept-encoding'] ?? '');
      const common: Array<readonly [string, string]> = [
        ['cache-control', CACHE_CONTROL],
        ['etag', variant.etag],
        ['vary', 'Accept-Encoding'],
        ['x-content-type-options', 'nosniff'],
        ['access-control-allow-origin', '*'],
      ];
      const ifNoneMatch = headers['if-none-match'];
      if (ifNoneMatch !== undefined && noneMatch(ifNoneMatch, variant.etag)) return new CustomReply(304, '', 'application/javascript; charset=utf-8', common);
      if (variant.encoding !== 'identity') common.push(['content-encoding', variant.encoding]);
      return new CustomReply(200, variant.body, 'application/javascript; charset=utf-8', common);
    },
  }),
];
