/**
 * Importing WordPress, Commento, Isso and Remark42 exports (written by the tests), on every
 * storage: authors, dates, threading, approval and spam, votes where the source keeps them,
 * text, users of authors with an email, every skipped record reported, and no duplicate on a
 * second run.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import type { VoteDoc } from '../../actors/page/vote-doc.js';
import { storages } from '../fixtures/server.js';
import { commentoJson, remark42Backup, wordpressXml, writeIssoDb } from './import-fixtures.js';
import { addTenant, destroyPlacement, docs, importFile, newPlacement, type Placement } from './import-helpers.js';

function byExternal(comments: CommentDoc[]): Map<string | null, CommentDoc> {
  return new Map(comments.map((c) => [c.externalId, c]));
}

for (const storage of storages()) {
  describe(`imports on ${storage}`, () => {
    const placements: Placement[] = [];
    after(async () => {
      for (const p of placements) await destroyPlacement(p);
    });
    const setup = async () => {
      const p = newPlacement(storage);
      placements.push(p);
      return { p, tenantId: await addTenant(p) };
    };

    test('WordPress WXR: comments, replies, approval, spam; pingbacks and trash reported', async () => {
      const { p, tenantId } = await setup();
      const file = join(p.dataDir, 'wp.xml');
      writeFileSync(
        file,
        wordpressXml([
          {
            id: '7',
            title: 'Hello & welcome',
            link: 'https://wp.example/2019/hello/',
            comments: [
              { id: '1', author: 'Ann', email: 'ann@wp.example', url: 'https://ann.example', dateGmt: '2019-05-01 08:30:00', content: 'First line\nSecond <em>line</em>', approved: '1' },
              { id: '2', author: 'Bob', email: 'bob@wp.example', dateGmt: '2019-05-02 09:00:00', content: 'A reply', approved: '0', parent: '1' },
              { id: '3', author: 'Pharma', email: 'x@spam.example', dateGmt: '2019-05-03 09:00:00', content: 'Cheap', approved: 'spam' },
              { id: '4', author: 'Gone', dateGmt: '2019-05-04 09:00:00', content: 'Trashed', approved: 'trash' },
              { id: '5', author: 'Other blog', dateGmt: '2019-05-05 09:00:00', content: 'Linked to you', approved: '1', type: 'pingback' },
            ],
          },
          { id: '8', title: 'Closed post', link: 'https://wp.example/closed', commentStatus: 'closed', comments: [{ id: '6', author: 'Anonymous reader', dateGmt: '2019-06-01 00:00:00', content: 'hi', approved: '1' }] },
        ]),
      );
      const report = await importFile(p, tenantId, 'wordpress', file);
      assert.deepEqual(report.comments, { total: 6, imported: 4, alreadyPresent: 0, skipped: 2 });
      assert.equal(report.threads.pages, 2);
      const c = byExternal(await docs<CommentDoc>(p, 'comments', { tenantId }));
      const ann = c.get('wordpress:1')!;
      assert.equal(ann.urlId, '/2019/hello');
      assert.equal(ann.pageTitle, 'Hello & welcome');
      assert.equal(ann.date, '2019-05-01T08:30:00.000Z');
      assert.equal(ann.commenterLink, 'https://ann.example');
      assert.equal(ann.commentHTML, 'First line<br>Second line');
      assert.equal(ann.comment, 'First line\nSecond line');
      assert.equal(c.get('wordpress:2')!.parentId, ann._id);
      assert.equal(c.get('wordpress:2')!.approved, false);
      assert.equal(c.get('wordpress:3')!.isSpam, true);
      assert.equal(c.get('wordpress:6')!.userId, null);
      assert.match(report.problems.first.map((x) => x.reason).join('\n'), /in the WordPress trash[\s\S]*a pingback, not a comment/);
      assert.equal(report.users.created, 3);
      const again = await importFile(p, tenantId, 'wordpress', file);
      assert.deepEqual(again.comments, { total: 6, imported: 0, alreadyPresent: 4, skipped: 2 });
    });

    test('Commento JSON: anonymous authors without a record, missing commenters, scores as votes', async () => {
      const { p, tenantId } = await setup();
      const file = join(p.dataDir, 'commento.json');
      writeFileSync(
        file,
        commentoJson(
          [
            { commentHex: 'c1', domain: 'site.example', url: '/p/1', commenterHex: 'u1', markdown: '**bold** text', html: '<p><b>bold</b> text</p>', parentHex: 'root', score: 3, state: 'approved', creationDate: '2020-02-02T10:00:00Z', deleted: false },
            { commentHex: 'c2', domain: 'site.example', url: '/p/1', commenterHex: 'anonymous', markdown: 'anon reply', html: '<p>anon reply</p>', parentHex: 'c1', score: -2, state: 'unapproved', creationDate: '2020-02-03T10:00:00Z', deleted: false },
            { commentHex: 'c3', domain: 'site.example', url: '/p/2', commenterHex: 'missing', markdown: 'who am I', html: '', parentHex: 'root', score: 0, state: 'flagged', creationDate: '2020-02-04T10:00:00Z', deleted: false },
            { commentHex: 'c4', domain: 'site.example', url: '/p/2', commenterHex: 'u1', markdown: 'deleted', html: '', parentHex: 'root', score: 0, state: 'approved', creationDate: '2020-02-05T10:00:00Z', deleted: true },
            { commentHex: 'c5', domain: 'site.example', url: '/p/2', commenterHex: 'u1', markdown: 'no date', parentHex: 'root', state: 'approved', creationDate: 'never' },
          ],
          [{ commenterHex: 'u1', email: 'carol@site.example', name: 'Carol', link: 'undefined', photo: 'undefined', provider: 'commento', joinDate: '2020-01-01T00:00:00Z', isModerator: false }],
        ),
      );
      const report = await importFile(p, tenantId, 'commento', file);
      assert.deepEqual(report.comments, { total: 5, imported: 3, alreadyPresent: 0, skipped: 2 });
      assert.equal(report.votes.imported, 5);
      const c = byExternal(await docs<CommentDoc>(p, 'comments', { tenantId }));
      const carol = c.get('commento:c1')!;
      assert.equal(carol.commenterName, 'Carol');
      assert.equal(carol.commenterLink, null);
      assert.equal(carol.comment, '**bold** text');
      assert.equal(carol.commentHTML, '<b>bold</b> text');
      assert.deepEqual([carol.votes, carol.votesUp, carol.votesDown], [3, 3, 0]);
      const anon = c.get('commento:c2')!;
      assert.equal(anon.commenterName, 'Anonymous');
      assert.equal(anon.userId, null);
      assert.equal(anon.parentId, carol._id);
      assert.equal(anon.approved, false);
      assert.deepEqual([anon.votes, anon.votesDown], [-2, 2]);
      const missing = c.get('commento:c3')!;
      assert.equal(missing.commenterName, 'Anonymous');
      assert.equal(missing.isSpam, true);
      assert.ok(report.problems.first.some((x) => x.sourceId === 'c3' && x.imported && /has no record/.test(x.reason)));
      const votes = await docs<VoteDoc>(p, 'votes', { tenantId });
      assert.equal(votes.length, 5);
      const again = await importFile(p, tenantId, 'commento', file);
      assert.deepEqual(again.comments, { total: 5, imported: 0, alreadyPresent: 3, skipped: 2 });
      assert.equal((await docs<VoteDoc>(p, 'votes', { tenantId })).length, 5, 'votes are not doubled');
    });

    test('Isso SQLite database: threads, parents, modes, likes and dislikes', async () => {
      const { p, tenantId } = await setup();
      const file = join(p.dataDir, 'comments.db');
      await writeIssoDb(
        file,
        [
          { id: 1, uri: '/blog/first/', title: 'First' },
          { id: 2, uri: '/blog/second', title: 'Second' },
        ],
        [
          { tid: 1, id: 1, parent: null, created: 1_500_000_000.25, mode: 1, text: 'Hello *isso*', author: 'Dana', email: 'dana@isso.example', website: 'https://dana.example', likes: 2, dislikes: 1 },
          { tid: 1, id: 2, parent: 1, created: 1_500_000_100, mode: 2, text: 'pending reply', author: null, email: null, website: null, likes: 0, dislikes: 0 },
          { tid: 2, id: 3, parent: null, created: 1_500_000_200, mode: 4, text: '', author: null, email: null, website: null, likes: 0, dislikes: 0 },
          { tid: 2, id: 4, parent: 3, created: 1_500_000_300, mode: 1, text: 'reply to a deleted one', author: 'Eve', email: null, website: null, likes: 0, dislikes: 0 },
        ],
      );
      const report = await importFile(p, tenantId, 'isso', file);
      assert.deepEqual(report.comments, { total: 4, imported: 3, alreadyPresent: 0, skipped: 1 });
      const c = byExternal(await docs<CommentDoc>(p, 'comments', { tenantId }));
      const dana = c.get('isso:1')!;
      assert.equal(dana.urlId, '/blog/first');
      assert.equal(dana.date, new Date(1_500_000_000_250).toISOString());
      assert.equal(dana.commentHTML, 'Hello <i>isso</i>');
      assert.deepEqual([dana.votes, dana.votesUp, dana.votesDown], [1, 2, 1]);
      assert.equal(dana.commenterLink, 'https://dana.example');
      assert.ok(dana.userId !== null);
      const pending = c.get('isso:2')!;
      assert.equal(pending.approved, false);
      assert.equal(pending.commenterName, 'Anonymous');
      assert.equal(pending.parentId, dana._id);
      assert.equal(c.get('isso:4')!.parentId, null, 'the reply of a deleted comment is kept at the top level');
      assert.ok(report.problems.first.some((x) => x.sourceId === '3' && /deleted in the source/.test(x.reason)));
      const again = await importFile(p, tenantId, 'isso', file);
      assert.deepEqual(again.comments, { total: 4, imported: 0, alreadyPresent: 3, skipped: 1 });
    });

    test('Remark42 backup: gzipped lines, votes per voter, pins, deleted comments', async () => {
      const { p, tenantId } = await setup();
      const file = join(p.dataDir, 'backup-site-20240101.gz');
      writeFileSync(
        file,
        remark42Backup([
          { id: 'r1', pid: '', text: '<p>Root <code>x</code></p>\n', orig: 'Root `x`', user: { name: 'Finn', id: 'github_1', picture: 'https://avatars.example/1.png' }, locator: { site: 'blog', url: 'https://r.example/post/1' }, score: 1, votes: { github_2: true, google_3: true, github_4: false }, time: '2021-03-01T12:00:00Z', pin: true, title: 'Post one' },
          { id: 'r2', pid: 'r1', text: '<p>reply</p>', orig: 'reply', user: { name: 'Gia', id: 'google_3' }, locator: { site: 'blog', url: 'https://r.example/post/1' }, score: 0, votes: {}, time: '2021-03-02T12:00:00Z' },
          { id: 'r3', pid: '', text: '', orig: '', user: { name: 'Finn', id: 'github_1' }, locator: { site: 'blog', url: 'https://r.example/post/1' }, time: '2021-03-03T12:00:00Z', delete: true },
        ]),
      );
      const report = await importFile(p, tenantId, 'remark42', file);
      assert.deepEqual(report.comments, { total: 3, imported: 2, alreadyPresent: 0, skipped: 1 });
      assert.equal(report.votes.imported, 3);
      const c = byExternal(await docs<CommentDoc>(p, 'comments', { tenantId }));
      const root = c.get('remark42:r1')!;
      assert.equal(root.urlId, '/post/1');
      assert.equal(root.isPinned, true);
      assert.equal(root.comment, 'Root `x`');
      assert.equal(root.commentHTML, 'Root <code>x</code>');
      assert.equal(root.avatarSrc, 'https://avatars.example/1.png');
      assert.deepEqual([root.votes, root.votesUp, root.votesDown], [1, 2, 1]);
      assert.equal(c.get('remark42:r2')!.parentId, root._id);
      const votes = await docs<VoteDoc>(p, 'votes', { tenantId, commentId: root._id });
      assert.equal(new Set(votes.map((v) => v.voterKey)).size, 3);
      const again = await importFile(p, tenantId, 'remark42', file);
      assert.deepEqual(again.comments, { total: 3, imported: 0, alreadyPresent: 2, skipped: 1 });
    });
  });
}
