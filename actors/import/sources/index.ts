/** The source reader of each third-party format. */
import type { ImportFormat, ImportSource } from '../records.js';
import { commentoSource } from './commento.js';
import { disqusSource } from './disqus.js';
import { issoSource } from './isso.js';
import { remark42Source } from './remark42.js';
import { wordpressSource } from './wordpress.js';

/** Opens `path` as an export of `format` (every format but `native`, which export/native-import.ts reads). */
export function openSource(format: Exclude<ImportFormat, 'native'>, path: string): Promise<ImportSource> {
  switch (format) {
    case 'disqus':
      return disqusSource(path);
    case 'wordpress':
      return wordpressSource(path);
    case 'commento':
      return commentoSource(path);
    case 'isso':
      return issoSource(path);
    case 'remark42':
      return remark42Source(path);
  }
}
