/**
 * `POST /upload-image/{tenantId}`: a reader's image for a comment. The body is
 * `multipart/form-data` with one file field, `file`. The type is read from the file's first
 * bytes (JPEG, PNG, GIF, WebP or AVIF; anything else, SVG included, is 415 `not-an-image`,
 * whatever name or type the browser gave it); the header's width × height is checked before
 * any decoding (more than `MAX_UPLOAD_PIXELS` is 422 `image-too-many-pixels`, so a
 * decompression bomb is never expanded, and sharp's `limitInputPixels` holds the same line
 * while decoding). The image is then decoded with sharp (only the first frame of an animation),
 * turned upright by its orientation, resized to fit the preset's sizes, and re-encoded (JPEG
 * stays JPEG, everything else becomes WebP) without any of its metadata (EXIF, GPS, ICC
 * comments). The files are stored beside the rest of the data (`storage/file-store.ts`) and
 * served by `GET /uploads/{tenantId}/{file}` with a year-long immutable cache header.
 * Limits: the body is at most `MAX_UPLOAD_BYTES` (413 `body-too-large`), and each client may
 * upload `UPLOADS_PER_HOUR` images (429 `rate-limited`). Public, no credits.
 */
import { randomBytes } from 'node:crypto';
import sharp, { type OutputInfo } from 'sharp';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { ApiError } from '../../engine/errors.js';
import { forwardedProto, limitKey } from '../client-address.js';
import { TokenBuckets } from '../rate-limit.js';
import type { AppServices } from '../services.js';
import { fileStoreFor } from '../../storage/file-store.js';
import { CustomReply, route, type RouteRequest, type Schema } from '../route.js';
import { text } from './page-context.js';

/** Where uploads are posted (the server allows larger bodies under it). */
export const UPLOAD_PATH_PREFIX = '/upload-image/';

/** Longest side of each size a preset makes, largest first. */
export const SIZE_PRESETS = { Default: [1600], CrossPlatform: [1600, 800, 400] } as const;

type ImageKind = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

/** The image type of a file by its magic bytes, or undefined. */
export function sniffImage(bytes: Uint8Array): ImageKind | undefined {
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1');
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && ascii(0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (bytes.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (bytes.length >= 12 && ascii(4, 8) === 'ftyp' && ['avif', 'avis'].includes(ascii(8, 12))) return 'avif';
  return undefined;
}

/**
 * Images decoded at once, and uploads waiting for a turn; beyond them an upload is refused with
 * 503 `overloaded`. A decoded image can take hundreds of megabytes: this bounds the memory all
 * uploads together may take, whatever many clients send.
 */
export const IMAGE_WORK = { concurrent: 2, waiting: 16 } as const;

let imagesActive = 0;
const imagesWaiting: (() => void)[] = [];

/** Runs `work` in one of the `IMAGE_WORK.concurrent` turns. */
export async function inImageTurn<T>(work: () => Promise<T>): Promise<T> {
  if (imagesActive >= IMAGE_WORK.concurrent) {
    if (imagesWaiting.length >= IMAGE_WORK.waiting) throw new ApiError('overloaded', 'Too many images are being processed; retry shortly.');
    // The turn is handed over by the upload that ends, without ever being free in between.
    await new Promise<void>((resolve) => imagesWaiting.push(resolve));
  } else imagesActive++;
  try {
    return await work();
  } finally {
    const next = imagesWaiting.shift();
    if (next !== undefined) next();
    else imagesActive--;
  }
}

const uploadBudgets = new WeakMap<AppServices, TokenBuckets>();

function budget(app: AppServices): TokenBuckets {
  let buckets = uploadBudgets.get(app);
  if (buckets === undefined) {
    const n = app.config.uploadsPerHour;
    buckets = new TokenBuckets({ perSecond: n / 3600, burst: Math.max(1, Math.floor(n / 4)) });
    uploadBudgets.set(app, buckets);
  }
  return buckets;
}

/** The file field of a multipart body, as bytes. */
async function fileOf(req: RouteRequest<unknown, Buffer>): Promise<Buffer> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(type)) throw new ApiError('invalid-upload', 'The body must be multipart/form-data with a file field named file.');
  let form: FormData;
  try {
    form = await new Response(req.body, { headers: { 'content-type': type } }).formData();
  } catch {
    throw new ApiError('invalid-upload', 'The multipart body could not be read.');
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string') throw new ApiError('invalid-upload', 'The body has no file field named file.');
  return Buffer.from(await file.arrayBuffer());
}

/** The server's own base URL for links to uploads: `PUBLIC_URL`, else the request's host. */
function baseUrl(req: RouteRequest<unknown, Buffer>): string {
  if (req.app.config.publicUrl) return req.app.config.publicUrl.replace(/\/+$/, '');
  const scheme = req.app.config.trustProxy && forwardedProto(req.headers) === 'https' ? 'https' : 'http';
  return `${scheme}://${req.headers['host'] ?? 'localhost'}`;
}

interface UploadQuery {
  sizePreset?: keyof typeof SIZE_PRESETS;
  urlId?: string;
}

const TENANT_PARAM: Schema = { type: 'object', properties: { tenantId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }, required: ['tenantId'] };
const FILE_NAME = /^([A-Za-z0-9_-]{1,64})\.(jpg|webp)$/;
const CONTENT_TYPES = { jpg: 'image/jpeg', webp: 'image/webp' } as const;

export const uploadImageRoutes = [
  route<UploadQuery, Buffer>({
    method: 'POST',
    path: '/upload-image/:tenantId',
    access: 'public',
    params: TENANT_PARAM,
    query: { type: 'object', properties: { sizePreset: { type: 'string', enum: Object.keys(SIZE_PRESETS) }, urlId: text(4096) } },
    rawBody: true,
    handle: async (req) => {
      const tenantId = req.params['tenantId']!;
      const { app } = req;
      // Proves the tenant exists before any work.
      await tenantSettings(app.system, tenantId, null);
      budget(app).spend(limitKey(req.ip), 'image uploads');
      const bytes = await fileOf(req);
      const kind = sniffImage(bytes);
      if (kind === undefined) throw new ApiError('not-an-image');
      const maxPixels = app.config.maxUploadPixels;
      let width: number;
      let height: number;
      try {
        // The header only: nothing is decoded yet.
        const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
        width = meta.width ?? 0;
        height = meta.height ?? 0;
      } catch {
        throw new ApiError('not-an-image', `The file starts like ${kind.toUpperCase()} but is not a readable image.`);
      }
      if (width <= 0 || height <= 0) throw new ApiError('not-an-image', 'The image has no size.');
      if (width * height > maxPixels) throw new ApiError('image-too-many-pixels', `The image is ${width} × ${height} pixels; at most ${maxPixels} pixels are accepted.`);
      const media = await inImageTurn(() => encode(req, tenantId, bytes, kind, width, height));
      return { url: media[0]!.src, media };
    },
  }),

  route<Record<string, never>, undefined>({
    method: 'GET',
    path: '/uploads/:tenantId/:file',
    access: 'public',
    params: { type: 'object', properties: { tenantId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, file: text(80, 1) }, required: ['tenantId', 'file'] },
    handle: async (req) => {
      const match = FILE_NAME.exec(req.params['file']!);
      const missing = () => new ApiError('not-found', 'No such upload.');
      if (match === null) throw missing();
      const stored = await fileStoreFor(req.app.store, req.app.config.dataDir).get(req.params['tenantId']!, match[1]!);
      if (stored === undefined || stored.contentType !== CONTENT_TYPES[match[2] as keyof typeof CONTENT_TYPES]) throw missing();
      return new CustomReply(200, stored.bytes, stored.contentType, [
        ['cache-control', 'public, max-age=31536000, immutable'],
        ['x-content-type-options', 'nosniff'],
        ['content-security-policy', "default-src 'none'"],
      ]);
    },
  }),
];

/** Decodes, resizes and re-encodes the image to each size of the preset, and stores each (durably). */
async function encode(req: RouteRequest<UploadQuery, Buffer>, tenantId: string, bytes: Buffer, kind: ImageKind, width: number, height: number): Promise<{ w: number; h: number; src: string }[]> {
  const { app } = req;
  const maxPixels = app.config.maxUploadPixels;
  const format = kind === 'jpeg' ? 'jpg' : 'webp';
  const id = randomBytes(12).toString('base64url');
  const files = fileStoreFor(app.store, app.config.dataDir);
  const base = baseUrl(req);
  const media: { w: number; h: number; src: string }[] = [];
  for (const side of SIZE_PRESETS[req.query.sizePreset ?? 'Default']) {
    if (media.length > 0 && side >= Math.max(width, height)) continue;
    let out: { data: Buffer; info: OutputInfo };
    try {
      const pipeline = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', animated: false })
        .rotate()
        .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
      out = await (format === 'jpg' ? pipeline.jpeg({ quality: 82, mozjpeg: true }) : pipeline.webp({ quality: 85 })).toBuffer({ resolveWithObject: true });
    } catch (err) {
      if (/pixel limit/i.test(String((err as Error).message))) throw new ApiError('image-too-many-pixels');
      throw new ApiError('not-an-image', 'The image could not be decoded.');
    }
    const name = `${id}-${out.info.width}`;
    await files.put(tenantId, name, out.data, CONTENT_TYPES[format]);
    media.push({ w: out.info.width, h: out.info.height, src: `${base}/uploads/${tenantId}/${name}.${format}` });
  }
  return media;
}
