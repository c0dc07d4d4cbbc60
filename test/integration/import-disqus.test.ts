/**
 * Importing a Disqus export, on every storage: what is kept (authors, dates, threading,
 * approval, spam, HTML cut to the allowed tags), users made of authors with an email, the
 * known traps (threads of one URL merged, empty thread ids, anonymous authors, gzipped files,
 * duplicates on re-import, silent zero-imports), the report's counts, and a dry run.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { importedCommentId } from '../../actors/import/import-docs.js';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import type { PageDoc } from '../../actors/page/page-doc.js';
import { storages } from '../fixtures/server.js';
import { disqusXml, type DisqusPost, type DisqusThread, wordpressXml } from './import-fixtures.js';
import { addTenant, cli, destroyPlacement, docs, importFile, newPlacement, type Placement, serveOn } from './import-helpers.js';

const THREADS: DisqusThread[] = [
  { id: '10', link: 'https://blog.example/a/', title: 'Post A' },
  // The same page again: another scheme, www, a tracking parameter (Disqus makes a thread each).
  { id: '11', link: 'http://www.blog.example/a?utm_source=x', title: 'Post A (copy)' },
  { id: '12', link: 'https://blog.example/b', title: 'Post B', closed: true },
  { id: '13', link: 'https://blog.example/gone', title: 'Deleted', deleted: true },
  { id: '14', link: '', title: 'Nowhere' },
];

const POSTS: DisqusPost[] = [
  { id: '100', thread: '10', message: '<p>Hello <b>world</b></p><p>second <a href="https://x.example/">link</a><script>alert(1)</script></p>', createdAt: '2015-01-01T10:00:00Z', name: 'Ann', email: 'ann@example.com' },
  { id: '101', thread: '11', parent: '100', message: 'A reply from a guest', createdAt: '2015-01-02T10:00:00Z', name: 'Guest', anonymous: true },
  { id: '102', thread: '12', message: 'Buy cheap things', createdAt: '2015-01-03T10:00:00Z', name: 'Spammer', email: 'spam@example.com', spam: true },
  { id: '103', thread: '10', message: '', createdAt: '2015-01-04T10:00:00Z', name: 'Ann', email: 'ann@example.com', deleted: true },
  { id: '104', thread: '13', message: 'On a deleted thread', createdAt: '2015-01-05T10:00:00Z', name: 'Bob', email: 'bob@example.com' },
  { id: '105', thread: '99', message: 'Thread not exported', createdAt: '2015-01-06T10:00:00Z', name: 'Bob', email: 'bob@example.com' },
  { id: '106', thread: '12', parent: '555', message: 'Reply to a post not exported', createdAt: '2015-01-07T10:00:00Z', name: 'Bob', email: 'bob@example.com' },
  { id: '107', thread: '10', parent: '101', message: 'Ann again', createdAt: '2015-01-08T10:00:00Z', name: 'Ann', email: 'ANN@example.com' },
  { id: '108', thread: '12', message: 'Waiting for moderation', createdAt: '2015-01-09T10:00:00Z', name: 'Cy', email: 'cy@example.com', approved: false },
  // Another author who used the name Ann: a user of their own.
  { id: '109', thread: '10', message: 'A second Ann', createdAt: '2015-01-10T10:00:00Z', name: 'Ann', email: 'other-ann@example.com' },
  { id: '110', thread: '14', message: 'On a thread without a link', createdAt: '2015-01-11T10:00:00Z', name: 'Guest', anonymous: true },
];

for (const storage of storages()) {
  describe(`Disqus import on ${storage}`, () => {
    const placements: Placement[] = [];
    after(async () => {
      for (const p of placements) await destroyPlacement(p);
    });

    test('keeps what the export holds, reports every record it skips, and adds nothing on a second run', async () => {
      const p = newPlacement(storage);
      placements.push(p);
      const tenantId = await addTenant(p);
      const file = join(p.dataDir, 'export.xml');
      writeFileSync(file, disqusXml(THREADS, POSTS));

      const dry = await importFile(p, tenantId, 'disqus', file, ['--dry-run']);
      assert.equal(dry.dryRun, true);
      assert.deepEqual(dry.comments, { total: 11, imported: 7, alreadyPresent: 0, skipped: 4 });
      assert.equal((await docs(p, 'comments', { tenantId })).length, 0, 'a dry run writes nothing');
      assert.equal((await docs(p, 'users', { tenantId })).length, 0);

      const report = await importFile(p, tenantId, 'disqus', file);
      assert.deepEqual(report.comments, { total: 11, imported: 7, alreadyPresent: 0, skipped: 4 });
      assert.equal(report.comments.imported + report.comments.alreadyPresent + report.comments.skipped, report.comments.total);
      assert.deepEqual(report.threads, { total: 5, skipped: 2, pages: 2 });
      const reasons = report.problems.first.map((x) => `${x.sourceId}: ${x.reason}`).join('\n');
      for (const expected of [/103: deleted in the source/, /104: its thread is deleted/, /105: its thread 99 is not in the export/, /110: its thread has neither a URL/, /disqus:106: its parent is not in the export/]) {
        assert.match(reasons, expected);
      }

      const comments = await docs<CommentDoc>(p, 'comments', { tenantId });
      assert.equal(comments.length, 7);
      const byId = new Map(comments.map((c) => [c.externalId, c]));
      const ann = byId.get('disqus:100')!;
      assert.equal(ann.urlId, '/a');
      assert.equal(ann.date, '2015-01-01T10:00:00.000Z');
      assert.equal(ann.commenterName, 'Ann');
      assert.equal(ann.commenterEmail, 'ann@example.com');
      assert.match(ann.commentHTML, /Hello <b>world<\/b><br><br>second <a href="https:\/\/x.example\/"/);
      assert.doesNotMatch(ann.commentHTML, /script|alert|&lt;p/);
      assert.doesNotMatch(ann.comment, /alert/);
      assert.equal(ann.approved, true);
      // Threads of one URL are one page; threading crosses them.
      const guest = byId.get('disqus:101')!;
      assert.equal(guest.urlId, '/a');
      assert.equal(guest.parentId, ann._id);
      assert.equal(guest.userId, null, 'an anonymous author is no user');
      assert.equal(guest.commenterName, 'Guest');
      assert.equal(byId.get('disqus:107')!.parentId, guest._id);
      assert.equal(byId.get('disqus:107')!.userId, ann.userId, 'one author (email in any case) is one user');
      assert.ok(ann.userId !== null);
      const spam = byId.get('disqus:102')!;
      assert.equal(spam.isSpam, true);
      assert.equal(spam.approved, false);
      assert.equal(byId.get('disqus:108')!.approved, false);
      assert.equal(byId.get('disqus:106')!.parentId, null, 'a reply whose parent is missing is kept as a top-level comment');
      const secondAnn = byId.get('disqus:109')!;
      assert.ok(secondAnn.userId !== null && secondAnn.userId !== ann.userId);

      const users = await docs<{ _id: string; username: string; email: string } & Record<string, unknown>>(p, 'users', { tenantId });
      assert.deepEqual(users.map((u) => u.email).sort(), ['ann@example.com', 'bob@example.com', 'cy@example.com', 'other-ann@example.com', 'spam@example.com']);
      assert.equal(report.users.created, 5);

      const pages = await docs<PageDoc>(p, 'pages', { tenantId });
      const pageA = pages.find((x) => x.urlId === '/a')!;
      assert.equal(pageA.commentCount, 4);
      assert.equal(pageA.title, 'Post A');
      assert.equal(pages.find((x) => x.urlId === '/b')!.isClosed, true);
      // Nobody is notified of history.
      for (const collection of ['notificationJobs', 'emailOutbox', 'pendingWebhookEvents', 'notifications']) {
        assert.equal((await docs(p, collection, { tenantId })).length, 0, `${collection} stays empty`);
      }

      // The same export again, gzipped: nothing new, nothing doubled.
      const gz = join(p.dataDir, 'export.xml.gz');
      writeFileSync(gz, gzipSync(disqusXml(THREADS, POSTS)));
      const again = await importFile(p, tenantId, 'disqus', gz);
      assert.deepEqual(again.comments, { total: 11, imported: 0, alreadyPresent: 7, skipped: 4 });
      assert.equal(again.users.created, 0);
      assert.equal((await docs(p, 'comments', { tenantId })).length, 7);
      assert.equal((await docs(p, 'users', { tenantId })).length, 5);

      // A newer export of the same site: only the new post is added.
      const newer = join(p.dataDir, 'newer.xml');
      writeFileSync(newer, disqusXml(THREADS, [...POSTS, { id: '111', thread: '10', parent: '109', message: 'New since', createdAt: '2016-01-01T00:00:00Z', name: 'Dee', email: 'dee@example.com' }]));
      const third = await importFile(p, tenantId, 'disqus', newer);
      assert.deepEqual(third.comments, { total: 12, imported: 1, alreadyPresent: 7, skipped: 4 });
      const fresh = (await docs<CommentDoc>(p, 'comments', { tenantId, externalId: 'disqus:111' }))[0]!;
      assert.equal(fresh.parentId, importedCommentId(tenantId, 'disqus', '109'));

      // What the API serves of the page.
      const server = await serveOn(p, tenantId);
      try {
        const res = await server.api(`/api/v1/comments?urlId=${encodeURIComponent('/a')}`);
        assert.equal(res.status, 200);
        const listed = res.body['comments'] as { commenterName: string; date: number }[];
        assert.equal(listed.length, 5);
        assert.ok(listed.some((c) => c.date === Date.parse('2015-01-01T10:00:00Z')));
      } finally {
        await server.stop();
      }
    });

    test('matches by the Disqus identifier on request, by URL path when it is empty', async () => {
      const p = newPlacement(storage);
      placements.push(p);
      const tenantId = await addTenant(p);
      const file = join(p.dataDir, 'ids.xml');
      writeFileSync(
        file,
        disqusXml(
          [
            { id: '1', link: 'https://blog.example/one', identifier: 'post-1' },
            { id: '2', link: 'https://blog.example/one-moved', identifier: 'post-1' },
            { id: '3', link: 'https://blog.example/two/', identifier: '' },
            { id: '4', link: 'https://blog.example/three', identifier: '' },
          ],
          [
            { id: 'a', thread: '1', message: 'one', createdAt: '2014-01-01T00:00:00Z', anonymous: true },
            { id: 'b', thread: '2', message: 'one, moved', createdAt: '2014-01-02T00:00:00Z', anonymous: true },
            { id: 'c', thread: '3', message: 'two', createdAt: '2014-01-03T00:00:00Z', anonymous: true },
            { id: 'd', thread: '4', message: 'three', createdAt: '2014-01-04T00:00:00Z', anonymous: true },
          ],
        ),
      );
      const report = await importFile(p, tenantId, 'disqus', file, ['--match', 'identifier']);
      assert.deepEqual(report.comments, { total: 4, imported: 4, alreadyPresent: 0, skipped: 0 });
      const urlIds = new Map((await docs<CommentDoc>(p, 'comments', { tenantId })).map((c) => [c.externalId, c.urlId]));
      assert.equal(urlIds.get('disqus:a'), 'post-1');
      assert.equal(urlIds.get('disqus:b'), 'post-1');
      // Empty identifiers do not all land on one page.
      assert.equal(urlIds.get('disqus:c'), '/two');
      assert.equal(urlIds.get('disqus:d'), '/three');
      assert.equal(report.problems.first.filter((x) => /empty identifier/.test(x.reason) && x.imported).length, 2);
    });

    test('a file that is not a Disqus export is refused, not imported as nothing', async () => {
      const p = newPlacement(storage);
      placements.push(p);
      const tenantId = await addTenant(p);
      const file = join(p.dataDir, 'wordpress.xml');
      writeFileSync(file, wordpressXml([{ id: '1', title: 'T', link: 'https://x.example/t', comments: [] }]));
      const out = await cli(p, ['import', '--tenant', tenantId, '--format', 'disqus', file]);
      assert.notEqual(out.code, 0);
      assert.match(out.stderr, /no threads or comments found: is this a disqus export\?/);
      const broken = join(p.dataDir, 'broken.xml');
      writeFileSync(broken, '<disqus><thread dsq:id="1"><link>x</link></disqus>');
      const bad = await cli(p, ['import', '--tenant', tenantId, '--format', 'disqus', broken]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /error:/);
      const unknown = await cli(p, ['import', '--tenant', 'no-such-tenant', '--format', 'disqus', file]);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /no tenant no-such-tenant/);
    });
  });
}
