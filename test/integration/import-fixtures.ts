/**
 * Export files of each format, written by the tests themselves: small builders that produce
 * what each system's exporter produces, so that no third-party file is kept in the repository.
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import initSqlJs from 'sql.js';

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface DisqusThread {
  id: string;
  link: string;
  title?: string;
  identifier?: string;
  closed?: boolean;
  deleted?: boolean;
}

export interface DisqusPost {
  id: string;
  thread: string;
  message: string;
  createdAt: string;
  parent?: string;
  name?: string;
  email?: string;
  anonymous?: boolean;
  deleted?: boolean;
  spam?: boolean;
  approved?: boolean;
}

/** A Disqus export (the layout of Disqus's own: categories, threads, then posts). */
export function disqusXml(threads: readonly DisqusThread[], posts: readonly DisqusPost[]): string {
  const parts = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    '<category dsq:id="1"><forum>site</forum><title>General</title><isDefault>true</isDefault></category>',
  ];
  for (const t of threads) {
    parts.push(
      `<thread dsq:id="${t.id}"><id>${xml(t.identifier ?? '')}</id><forum>site</forum><category dsq:id="1"/><link>${xml(t.link)}</link><title>${xml(t.title ?? '')}</title><message/>` +
        `<createdAt>2012-01-01T00:00:00Z</createdAt><author><name>owner</name><isAnonymous>false</isAnonymous></author><isClosed>${t.closed === true}</isClosed><isDeleted>${t.deleted === true}</isDeleted></thread>`,
    );
  }
  for (const p of posts) {
    const author = p.anonymous
      ? `<author><name>${xml(p.name ?? 'Guest')}</name><isAnonymous>true</isAnonymous></author>`
      : `<author>${p.email === undefined ? '' : `<email>${xml(p.email)}</email>`}<name>${xml(p.name ?? 'Someone')}</name><isAnonymous>false</isAnonymous><username>${xml((p.name ?? 'someone').toLowerCase())}</username></author>`;
    parts.push(
      `<post dsq:id="${p.id}"><id/><message><![CDATA[${p.message}]]></message><createdAt>${p.createdAt}</createdAt><isDeleted>${p.deleted === true}</isDeleted><isSpam>${p.spam === true}</isSpam>` +
        (p.approved === undefined ? '' : `<isApproved>${p.approved}</isApproved>`) +
        `${author}<ipAddress>127.0.0.1</ipAddress><thread dsq:id="${p.thread}"/>${p.parent === undefined ? '' : `<parent dsq:id="${p.parent}"/>`}</post>`,
    );
  }
  parts.push('</disqus>');
  return parts.join('\n');
}

export interface WpComment {
  id: string;
  author: string;
  email?: string;
  url?: string;
  dateGmt: string;
  content: string;
  approved: '1' | '0' | 'spam' | 'trash';
  type?: '' | 'pingback' | 'trackback';
  parent?: string;
}

export interface WpPost {
  id: string;
  title: string;
  link: string;
  commentStatus?: 'open' | 'closed';
  comments: readonly WpComment[];
}

/** A WordPress WXR 1.2 file. */
export function wordpressXml(posts: readonly WpPost[]): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8" ?>',
    '<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">',
    '<channel><title>Blog</title><link>https://wp.example</link><wp:wxr_version>1.2</wp:wxr_version>',
  ];
  for (const p of posts) {
    parts.push(`<item><title>${xml(p.title)}</title><link>${xml(p.link)}</link><dc:creator><![CDATA[admin]]></dc:creator><content:encoded><![CDATA[<p>Post body</p>]]></content:encoded>`);
    parts.push(`<wp:post_id>${p.id}</wp:post_id><wp:comment_status><![CDATA[${p.commentStatus ?? 'open'}]]></wp:comment_status><wp:status><![CDATA[publish]]></wp:status><wp:post_type><![CDATA[post]]></wp:post_type>`);
    for (const c of p.comments) {
      parts.push(
        `<wp:comment><wp:comment_id>${c.id}</wp:comment_id><wp:comment_author><![CDATA[${c.author}]]></wp:comment_author><wp:comment_author_email><![CDATA[${c.email ?? ''}]]></wp:comment_author_email>` +
          `<wp:comment_author_url>${xml(c.url ?? '')}</wp:comment_author_url><wp:comment_author_IP><![CDATA[10.0.0.1]]></wp:comment_author_IP><wp:comment_date><![CDATA[${c.dateGmt}]]></wp:comment_date>` +
          `<wp:comment_date_gmt><![CDATA[${c.dateGmt}]]></wp:comment_date_gmt><wp:comment_content><![CDATA[${c.content}]]></wp:comment_content><wp:comment_approved><![CDATA[${c.approved}]]></wp:comment_approved>` +
          `<wp:comment_type><![CDATA[${c.type ?? ''}]]></wp:comment_type><wp:comment_parent>${c.parent ?? '0'}</wp:comment_parent><wp:comment_user_id>0</wp:comment_user_id></wp:comment>`,
      );
    }
    parts.push('</item>');
  }
  parts.push('</channel></rss>');
  return parts.join('\n');
}

/** A Commento export. */
export function commentoJson(comments: readonly Record<string, unknown>[], commenters: readonly Record<string, unknown>[]): string {
  return JSON.stringify({ version: 1, comments, commenters });
}

export interface IssoThread {
  id: number;
  uri: string;
  title: string;
}

export interface IssoComment {
  tid: number;
  id: number;
  parent: number | null;
  created: number;
  mode: 1 | 2 | 4;
  text: string;
  author: string | null;
  email: string | null;
  website: string | null;
  likes: number;
  dislikes: number;
}

/** An Isso database file (Isso's own schema), made with sql.js. */
export async function writeIssoDb(path: string, threads: readonly IssoThread[], comments: readonly IssoComment[]): Promise<void> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE threads (id INTEGER PRIMARY KEY, uri VARCHAR(256) UNIQUE, title VARCHAR(256))');
  db.run(
    'CREATE TABLE comments (tid REFERENCES threads(id), id INTEGER PRIMARY KEY, parent INTEGER, created FLOAT NOT NULL, modified FLOAT, mode INTEGER, remote_addr VARCHAR, text VARCHAR, author VARCHAR, email VARCHAR, website VARCHAR, likes INTEGER DEFAULT 0, dislikes INTEGER DEFAULT 0, voters BLOB NOT NULL, notification INTEGER DEFAULT 0)',
  );
  for (const t of threads) db.run('INSERT INTO threads (id, uri, title) VALUES (?, ?, ?)', [t.id, t.uri, t.title]);
  for (const c of comments) {
    db.run('INSERT INTO comments (tid, id, parent, created, modified, mode, remote_addr, text, author, email, website, likes, dislikes, voters) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      c.tid, c.id, c.parent, c.created, c.mode, '127.0.0.0', c.text, c.author, c.email, c.website, c.likes, c.dislikes, new Uint8Array(32),
    ]);
  }
  writeFileSync(path, Buffer.from(db.export()));
  db.close();
}

/** A Remark42 backup (gzipped JSON lines, the metadata line first). */
export function remark42Backup(comments: readonly Record<string, unknown>[]): Buffer {
  const meta = { version: 1, users: [], posts: [] };
  return gzipSync([JSON.stringify(meta), ...comments.map((c) => JSON.stringify(c))].join('\n') + '\n');
}

/**
 * A generated Disqus export of `comments` posts over `threads` threads (every fourth a reply
 * to an earlier post of its thread; one of `authors` authors with an email in three of four), written as a
 * stream so that a million posts take no memory.
 */
export async function generateDisqus(path: string, threads: number, comments: number, authors = 5000): Promise<void> {
  const { createWriteStream } = await import('node:fs');
  const { finished } = await import('node:stream/promises');
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  await write('<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n');
  for (let t = 0; t < threads; t++) {
    await write(`<thread dsq:id="t${t}"><id></id><link>https://gen.example/posts/${t}/</link><title>Post ${t}</title><isClosed>false</isClosed><isDeleted>false</isDeleted></thread>\n`);
  }
  const base = Date.parse('2010-01-01T00:00:00Z');
  let chunk = '';
  for (let i = 0; i < comments; i++) {
    const t = i % threads;
    const parent = i % 4 === 3 && i >= threads ? `<parent dsq:id="p${i - threads}"/>` : '';
    const author = i % 4 === 0 ? '<author><name>Guest</name><isAnonymous>true</isAnonymous></author>' : `<author><email>user${i % authors}@gen.example</email><name>User ${i % authors}</name><isAnonymous>false</isAnonymous></author>`;
    chunk += `<post dsq:id="p${i}"><id/><message><![CDATA[<p>Comment number ${i} on <b>post ${t}</b>.</p>]]></message><createdAt>${new Date(base + i * 60_000).toISOString()}</createdAt><isDeleted>false</isDeleted><isSpam>false</isSpam>${author}<thread dsq:id="t${t}"/>${parent}</post>\n`;
    if (chunk.length > 256 * 1024) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk + '</disqus>\n');
  out.end();
  await finished(out);
}
