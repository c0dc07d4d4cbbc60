/**
 * Disqus XML export (plain or gzipped): `<thread dsq:id>` elements, then `<post dsq:id>`
 * elements naming their thread (and parent) by `dsq:id`. The thread's `<id>` (the site's own
 * identifier) is often empty: pages are matched by URL unless asked otherwise (match.ts).
 */
import { openInput } from '../file-input.js';
import { type ImportSource, isoDate, htmlToText, type SourceRecord } from '../records.js';
import { child, childFlag, childText, type XmlNode, xmlRecords } from '../xml-records.js';

function dsqId(node: XmlNode | undefined): string {
  return node?.attrs['dsq:id']?.trim() ?? '';
}

function thread(node: XmlNode): SourceRecord {
  const sourceId = dsqId(node);
  if (sourceId === '') return { kind: 'problem', problem: { record: 'thread', sourceId: null, reason: 'thread without a dsq:id: its posts cannot name it' } };
  const link = childText(node, 'link');
  return {
    kind: 'thread',
    thread: {
      sourceId,
      url: link === '' ? null : link,
      title: childText(node, 'title') || null,
      identifier: childText(node, 'id') || null,
      isClosed: childFlag(node, 'isClosed'),
      isDeleted: childFlag(node, 'isDeleted'),
    },
  };
}

function post(node: XmlNode): SourceRecord {
  const sourceId = dsqId(node);
  if (sourceId === '') return { kind: 'problem', problem: { record: 'comment', sourceId: null, reason: 'post without a dsq:id' } };
  const threadId = dsqId(child(node, 'thread'));
  if (threadId === '') return { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'post names no thread' } };
  const date = isoDate(childText(node, 'createdAt'));
  if (date === null) return { kind: 'problem', problem: { record: 'comment', sourceId, reason: 'post has no valid createdAt' } };
  const author = child(node, 'author');
  const email = author === undefined ? '' : childText(author, 'email');
  const name = (author === undefined ? '' : childText(author, 'name') || childText(author, 'username')) || 'Anonymous';
  const html = child(node, 'message')?.text ?? '';
  const approvedText = childText(node, 'isApproved');
  return {
    kind: 'comment',
    comment: {
      sourceId,
      threadId,
      parentSourceId: dsqId(child(node, 'parent')) || null,
      authorName: name,
      authorEmail: email === '' ? null : email,
      authorLink: null,
      authorAvatar: null,
      date,
      html,
      text: htmlToText(html),
      approved: approvedText === '' ? true : approvedText === 'true',
      spam: childFlag(node, 'isSpam'),
      deleted: childFlag(node, 'isDeleted'),
      pinned: false,
      voters: null,
      votesUp: Number(childText(node, 'likes')) || 0,
      votesDown: Number(childText(node, 'dislikes')) || 0,
    },
  };
}

/** The records of a Disqus export file. */
export async function disqusSource(path: string): Promise<ImportSource> {
  const input = await openInput(path);
  async function* records(): AsyncGenerator<SourceRecord> {
    for await (const node of xmlRecords(input, (name, depth) => depth === 1 && (name === 'thread' || name === 'post'))) {
      yield node.name === 'thread' ? thread(node) : post(node);
    }
  }
  return { records: records(), bytesRead: input.bytesRead };
}
