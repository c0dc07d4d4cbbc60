/**
 * WordPress WXR (1.x): an `<item>` per post, with its `<wp:comment>` children. One item (a
 * post and its comments) is held at a time.
 */
import { openInput } from '../file-input.js';
import { htmlToText, type ImportSource, isoDate, type SourceRecord } from '../records.js';
import { childText, type XmlNode, xmlRecords } from '../xml-records.js';

/** WordPress dates are "YYYY-MM-DD hh:mm:ss"; the GMT one is UTC, the other local (taken as UTC). */
function wpDate(comment: XmlNode): string | null {
  for (const field of ['wp:comment_date_gmt', 'wp:comment_date']) {
    const text = childText(comment, field);
    if (text === '' || text.startsWith('0000')) continue;
    const iso = isoDate(text.replace(' ', 'T') + 'Z');
    if (iso !== null) return iso;
  }
  return null;
}

function* item(node: XmlNode): Generator<SourceRecord> {
  const postId = childText(node, 'wp:post_id');
  const comments = node.children.filter((c) => c.name === 'wp:comment');
  if (postId === '') {
    for (const c of comments) yield { kind: 'problem', problem: { record: 'comment', sourceId: childText(c, 'wp:comment_id') || null, reason: 'its item has no wp:post_id' } };
    return;
  }
  const link = childText(node, 'link');
  yield {
    kind: 'thread',
    thread: {
      sourceId: postId,
      url: link === '' ? null : link,
      title: childText(node, 'title') || null,
      identifier: postId,
      isClosed: childText(node, 'wp:comment_status') === 'closed',
      isDeleted: childText(node, 'wp:status') === 'trash',
    },
  };
  for (const c of comments) {
    const sourceId = childText(c, 'wp:comment_id');
    if (sourceId === '') {
      yield { kind: 'problem', problem: { record: 'comment', sourceId: null, reason: 'comment without a wp:comment_id' } };
      continue;
    }
    const type = childText(c, 'wp:comment_type');
    if (type === 'pingback' || type === 'trackback') {
      yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: `a ${type}, not a comment` } };
      continue;
    }
    const status = childText(c, 'wp:comment_approved');
    if (status === 'trash' || status === 'post-trashed') {
      yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'in the WordPress trash' } };
      continue;
    }
    const date = wpDate(c);
    if (date === null) {
      yield { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'no valid comment date' } };
      continue;
    }
    const content = c.children.find((x) => x.name === 'wp:comment_content')?.text ?? '';
    const parent = childText(c, 'wp:comment_parent');
    const email = childText(c, 'wp:comment_author_email');
    const url = childText(c, 'wp:comment_author_url');
    yield {
      kind: 'comment',
      comment: {
        sourceId,
        threadId: postId,
        parentSourceId: parent === '' || parent === '0' ? null : parent,
        authorName: childText(c, 'wp:comment_author') || 'Anonymous',
        authorEmail: email === '' ? null : email,
        authorLink: url === '' ? null : url,
        authorAvatar: null,
        date,
        // WordPress keeps line breaks as newlines and adds paragraphs on display.
        html: content.trim().replace(/\r?\n/g, '<br>'),
        text: htmlToText(content),
        approved: status === '1' || status === 'approve',
        spam: status === 'spam',
        deleted: false,
        pinned: false,
        voters: null,
        votesUp: 0,
        votesDown: 0,
      },
    };
  }
}

/** The records of a WordPress WXR file. */
export async function wordpressSource(path: string): Promise<ImportSource> {
  const input = await openInput(path);
  async function* records(): AsyncGenerator<SourceRecord> {
    for await (const node of xmlRecords(input, (name, depth, parent) => depth === 2 && name === 'item' && parent === 'channel')) yield* item(node);
  }
  return { records: records(), bytesRead: input.bytesRead };
}
