import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pageTopic } from '../../actors/live/live-events.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type Comment, getComment, inParallel, listComments, outcome, postComment, recordEvents } from './page-helpers.js';

for (const storage of storages()) {
  describe(`comments on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('create, read one, read the page; a user is created from the email', async () => {
      const r = await t.api<{ comment: Comment; user: { id: string; username: string } }>('POST', '/api/v1/comments', {
        body: {
          commenterName: 'Ann',
          commenterEmail: 'Ann@Example.com',
          comment: 'Hello **there** #Intro <script>x</script>',
          url: 'https://example.com/a',
          urlId: '/a',
          locale: 'en_us',
          pageTitle: 'Page A',
          date: Date.UTC(2024, 4, 1),
        },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const c = r.body.comment;
      assert.equal(c.id, c._id);
      assert.equal(c.commentHTML, 'Hello <b>there</b> #Intro &lt;script&gt;x&lt;/script&gt;');
      // APIComment.date: epoch milliseconds.
      assert.equal(c['date'], Date.UTC(2024, 4, 1));
      assert.deepEqual(c['hashTags'], [{ id: `${t.tenant.tenantId}:intro`, tag: '#Intro', url: null }]);
      assert.deepEqual([c.votes, c.votesUp, c.votesDown, c.flagCount, c.approved, c.verified], [0, 0, 0, 0, true, false]);
      // Optional fields are left out while null, false or empty.
      assert.deepEqual([c.isSpam, c.isLocked, c['commenterLink'], c['mentions']], [undefined, undefined, undefined, undefined]);
      assert.equal(r.body.user.username, 'Ann');
      assert.equal(c.userId, r.body.user.id);
      assert.equal(r.body['creditsCost' as never], 1);

      const user = await t.api<{ user: { email: string; username: string } }>('GET', `/api/v1/users/${c.userId}`);
      assert.deepEqual([user.status, user.body.user.email, user.body.user.username], [200, 'ann@example.com', 'Ann']);

      assert.deepEqual(await getComment(t, c._id), c);
      const page = await t.api<{ comments: Comment[]; urlIdWS: string; tenantIdWS: string; creditsCost: number }>('GET', '/api/v1/comments', { query: { urlId: '/a' } });
      assert.deepEqual(page.body.comments, [c]);
      assert.equal(page.body.urlIdWS, t.server.services.liveIds.urlIdWS(t.tenant.tenantId, '/a'));
      assert.equal(page.body.tenantIdWS, t.server.services.liveIds.tenantIdWS(t.tenant.tenantId));
      assert.equal(page.body.creditsCost, 1);
      const pages = await t.api<{ page: { title: string; commentCount: number; rootCommentCount: number } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/a' } });
      assert.deepEqual([pages.body.page.title, pages.body.page.commentCount, pages.body.page.rootCommentCount], ['Page A', 1, 1]);
    });

    test('bad input is refused with its code and changes nothing', async () => {
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId: '/bad' }, body: { maxCommentCharacterLength: 10 } });
      const good = { commenterName: 'Bo', comment: 'short', url: 'https://e/bad', urlId: '/bad', locale: 'en_us' };
      const cases: [unknown, number, string][] = [
        [{ ...good, urlId: undefined }, 400, 'missing-url-id'],
        [{ ...good, urlId: '  ' }, 400, 'missing-url-id'],
        [{ ...good, comment: '   ' }, 400, 'empty-comment'],
        [{ ...good, comment: 'far too long for this page' }, 400, 'comment-too-big'],
        [{ ...good, commenterEmail: 'nope' }, 400, 'invalid-email'],
        [{ ...good, commenterName: 'bo@example.com' }, 400, 'invalid-name-is-email'],
        [{ ...good, commenterName: ' ' }, 400, 'invalid-name'],
        [{ ...good, date: -5 }, 400, 'invalid-date'],
        [{ ...good, votes: 3 }, 400, 'calculated-field'],
        [{ ...good, parentId: '0123456789abcdef01234567' }, 400, 'invalid-parent-id'],
        [{ ...good, colour: 'red' }, 400, 'unexpected-param'],
        [{ ...good, comment: 5 }, 400, 'invalid-param'],
        [{ ...good, locale: undefined }, 400, 'missing-param'],
        ['{"commenterName":', 400, 'invalid-json'],
        [{ ...good, poll: { question: 'Q?', options: [{ label: 'a' }, { label: 'A' }] } }, 400, 'poll-invalid'],
      ];
      for (const [body, status, code] of cases) {
        const r = await t.api('POST', '/api/v1/comments', { body });
        assert.deepEqual(outcome(r), [status, code], JSON.stringify(body));
      }
      const tooBig = await t.api('POST', '/api/v1/comments', { body: { ...good, comment: 'x'.repeat(11) } });
      assert.equal(tooBig.body['maxCharacterLength'], 10);
      assert.deepEqual(await listComments(t, { urlId: '/bad' }), []);
      assert.equal((await t.api('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/bad' } })).status, 404);
    });

    test('precalculated and flexible paging, directions, and the page size setting', async () => {
      const urlId = '/paging';
      const made: Comment[] = [];
      for (let i = 0; i < 35; i++) made.push(await postComment(t, urlId, { comment: `c${i}`, date: Date.UTC(2024, 0, 1, 0, i) }));
      const ofIds = made.map((c) => c._id);
      const page0 = await listComments(t, { urlId, direction: 'OF' });
      assert.deepEqual(page0.map((c) => c._id), ofIds.slice(0, 30));
      const page1 = await listComments(t, { urlId, direction: 'OF', page: 1 });
      assert.deepEqual(page1.map((c) => c._id), ofIds.slice(30));
      const nf = await listComments(t, { urlId, direction: 'NF', limit: 3, skip: 1 });
      assert.deepEqual(nf.map((c) => c._id), [...ofIds].reverse().slice(1, 4));
      const both = await t.api('GET', '/api/v1/comments', { query: { urlId, page: 0, limit: 5 } });
      assert.deepEqual(outcome(both), [400, 'invalid-param']);

      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { pageSize: 10, defaultSortDirection: 'NF' } });
      const small = await listComments(t, { urlId, page: 1 });
      assert.deepEqual(small.map((c) => c._id), [...ofIds].reverse().slice(10, 20));

      // Most relevant: votes first, then newest.
      const up = await t.api('POST', '/api/v1/votes', { query: { commentId: ofIds[3]!, direction: 'up', userId: 'voter' } });
      assert.equal(up.status, 200);
      const mr = await listComments(t, { urlId, direction: 'MR', limit: 2 });
      assert.deepEqual(mr.map((c) => c._id), [ofIds[3], ofIds[34]]);
    });

    test('levels, trees and their cost', async () => {
      const urlId = '/tree';
      const a = await postComment(t, urlId, { comment: 'a', date: 1_000 });
      const b = await postComment(t, urlId, { comment: 'b', date: 2_000 });
      const a1 = await postComment(t, urlId, { comment: 'a1', parentId: a._id, date: 3_000 });
      const a2 = await postComment(t, urlId, { comment: 'a2', parentId: a._id, date: 4_000 });
      const a1x = await postComment(t, urlId, { comment: 'a1x', parentId: a1._id, date: 5_000 });
      const roots = await listComments(t, { urlId, parentId: 'null', direction: 'OF' });
      assert.deepEqual(roots.map((c) => c._id), [a._id, b._id]);
      const replies = await listComments(t, { urlId, parentId: a._id, direction: 'OF' });
      assert.deepEqual(replies.map((c) => c._id), [a1._id, a2._id]);

      const noParent = await t.api('GET', '/api/v1/comments', { query: { urlId, asTree: true } });
      assert.deepEqual(outcome(noParent), [400, 'missing-param']);
      const tree = await t.api<{ comments: Comment[]; creditsCost: number }>('GET', '/api/v1/comments', {
        query: { urlId, asTree: true, parentId: 'null', direction: 'OF', limit: 1, limitChildren: 1, skipChildren: 0 },
      });
      assert.equal(tree.body.creditsCost, 2);
      const [top] = tree.body.comments;
      assert.equal(tree.body.comments.length, 1);
      assert.equal(top!._id, a._id);
      assert.equal(top!.hasChildren, true);
      assert.deepEqual(top!.children!.map((c) => c._id), [a1._id]);
      assert.deepEqual(top!.children![0]!.children!.map((c) => [c._id, c.hasChildren]), [[a1x._id, false]]);
      const shallow = await listComments(t, { urlId, asTree: true, parentId: 'null', direction: 'OF', maxTreeDepth: 0 });
      assert.deepEqual(shallow.map((c) => [c._id, c.hasChildren, c.children]), [[a._id, true, undefined], [b._id, false, undefined]]);
    });

    test('filters: user, dates, hashtags on a page and across the tenant; spam and unapproved left out', async () => {
      const urlId = '/filters';
      const mine = await postComment(t, urlId, { userId: 'u-filter', comment: 'about #cats and #dogs', date: Date.UTC(2024, 1, 1) });
      await postComment(t, urlId, { comment: 'only #cats', date: Date.UTC(2024, 2, 1) });
      await postComment(t, urlId, { comment: 'hidden #cats #dogs', approved: false });
      const elsewhere = await postComment(t, '/filters-2', { comment: 'also #Cats #dogs', date: Date.UTC(2024, 3, 1) });
      assert.deepEqual((await listComments(t, { urlId, userId: 'u-filter' })).map((c) => c._id), [mine._id]);
      assert.deepEqual((await listComments(t, { urlId, hashTag: ['cats', '#dogs'] })).map((c) => c._id), [mine._id]);
      assert.equal((await listComments(t, { urlId, fromDate: Date.UTC(2024, 1, 15) })).length, 1);
      assert.equal((await listComments(t, { urlId, toDate: Date.UTC(2024, 1, 15) })).length, 1);
      const tenantWide = await listComments(t, { hashTag: ['CATS', 'dogs'], direction: 'OF' });
      assert.deepEqual(tenantWide.map((c) => c._id), [mine._id, elsewhere._id]);
      const treeWide = await t.api('GET', '/api/v1/comments', { query: { asTree: true, parentId: 'null' } });
      assert.deepEqual(outcome(treeWide), [400, 'missing-url-id']);
    });

    test('a reader context tags their votes, hides authors they blocked, and adds userIdWS', async () => {
      const urlId = '/context';
      const a = await postComment(t, urlId, { userId: 'author-a', comment: 'a' });
      const b = await postComment(t, urlId, { userId: 'author-b', comment: 'b' });
      const vote = await t.api<{ voteId: string }>('POST', '/api/v1/votes', { query: { commentId: a._id, direction: 'down', userId: 'reader' } });
      const block = await t.api<{ commentStatuses: Record<string, boolean> }>('POST', `/api/v1/comments/${b._id}/block`, {
        query: { userId: 'reader' },
        body: { commentIdsToCheck: [a._id, b._id] },
      });
      assert.deepEqual(block.body.commentStatuses, { [a._id]: false, [b._id]: true });
      const r = await t.api<{ comments: Comment[]; userIdWS: string }>('GET', '/api/v1/comments', { query: { urlId, contextUserId: 'reader' } });
      assert.deepEqual(r.body.comments.map((c) => [c._id, c['isVotedUp'], c['isVotedDown'], c['myVoteId']]), [[a._id, false, true, vote.body.voteId]]);
      assert.equal(r.body.userIdWS, t.server.services.liveIds.userIdWS(t.tenant.tenantId, 'reader'));
      assert.equal((await listComments(t, { urlId })).length, 2);
    });

    test('dates: answers give epoch ms, inputs take ms or ISO, live events give ISO', async () => {
      const iso = await postComment(t, '/dates', { comment: 'iso', date: '2024-06-01T12:00:00+02:00' }, { isLive: true });
      assert.equal(iso['date'], Date.UTC(2024, 5, 1, 10));
      const ms = await postComment(t, '/dates', { comment: 'ms', date: Date.UTC(2024, 5, 2) });
      assert.equal(ms['date'], Date.UTC(2024, 5, 2));
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/comments', { body: { commenterName: 'A', comment: 'x', url: 'https://e/d', urlId: '/dates', locale: 'en', date: 'yesterday' } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/comments', { body: { commenterName: 'A', comment: 'x', url: 'https://e/d', urlId: '/dates', locale: 'en', date: '1969-12-31T23:59:59Z' } })), [400, 'invalid-date']);

      let r = await t.api<{ comment: Comment }>('PATCH', `/api/v1/comments/${ms._id}`, { body: { date: '2024-07-01T00:00:00.000Z', expireAt: Date.UTC(2030, 0, 1), verifiedDate: '2024-07-02T00:00:00Z' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual([r.body.comment['date'], r.body.comment['expireAt'], r.body.comment['verifiedDate']], [Date.UTC(2024, 6, 1), '2030-01-01T00:00:00.000Z', '2024-07-02T00:00:00.000Z']);
      r = await t.api<{ comment: Comment }>('PATCH', `/api/v1/comments/${ms._id}`, { body: { date: Date.UTC(2024, 6, 3), expireAt: null } });
      assert.deepEqual([r.body.comment['date'], r.body.comment['expireAt']], [Date.UTC(2024, 6, 3), undefined]);
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/comments/${ms._id}`, { body: { expireAt: -1 } })), [400, 'invalid-date']);
      assert.deepEqual((await listComments(t, { urlId: '/dates', direction: 'OF' })).map((c) => c['date']), [Date.UTC(2024, 5, 1, 10), Date.UTC(2024, 6, 3)]);
      // Stored as ISO: the tenant-wide search by date still finds it.
      assert.deepEqual((await listComments(t, { fromDate: Date.UTC(2024, 6, 2), toDate: Date.UTC(2024, 6, 4) })).map((c) => [c._id, c['date']]), [[ms._id, Date.UTC(2024, 6, 3)]]);

      const log = await t.api<{ events: { data: string }[] }>('GET', `/event-log/${t.tenant.tenantId}`, { auth: 'none', query: { urlId: '/dates', startTime: 0 } });
      const created = log.body.events.map((e) => JSON.parse(e.data) as { type: string; comment?: Record<string, unknown> }).find((e) => e.type === 'new-comment');
      assert.equal(created?.comment?.['date'], '2024-06-01T10:00:00.000Z');
    });

    test('update: text regenerates its HTML, given HTML is cleaned, calculated fields refused, email rule', async () => {
      const c = await postComment(t, '/update', { comment: 'first' });
      let r = await t.api<{ comment: Comment }>('PATCH', `/api/v1/comments/${c._id}`, { body: { comment: 'now *new*' } });
      assert.equal(r.body.comment.commentHTML, 'now <i>new</i>');
      r = await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { comment: 'raw', commentHTML: '<b>kept</b><script>bad()</script>' } });
      assert.deepEqual([r.body.comment.comment, r.body.comment.commentHTML], ['raw', '<b>kept</b>&lt;script&gt;bad()&lt;/script&gt;']);
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { votesUp: 9 } })), [400, 'calculated-field']);
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { commenterEmail: 'nobody@example.com' } })), [400, 'invalid-user']);
      const other = await t.api<{ user: { id: string } }>('POST', '/api/v1/comments', {
        body: { commenterName: 'Known', commenterEmail: 'known@example.com', comment: 'x', url: 'https://example.com/u', urlId: '/update-2', locale: 'en' },
      });
      r = await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { commenterEmail: 'Known@example.com' } });
      assert.deepEqual([r.status, r.body.comment.userId], [200, other.body.user.id]);
      r = await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { commenterEmail: 'free@example.com', userId: 'given-user' } });
      assert.deepEqual([r.status, r.body.comment.userId], [200, 'given-user']);
      assert.deepEqual(outcome(await t.api('PATCH', '/api/v1/comments/0123456789abcdef01234567', { body: { comment: 'x' } })), [404, 'not-found']);
      assert.equal((await getComment(t, c._id)).comment, 'raw');
    });

    test('locked comments refuse updates and deletes until unlocked; lock changes are live', async () => {
      const c = await postComment(t, '/locked', { comment: 'lock me' });
      const rec = recordEvents(t);
      try {
        assert.equal((await t.api('PATCH', `/api/v1/comments/${c._id}`, { query: { isLive: true }, body: { isLocked: true } })).status, 200);
        assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { comment: 'changed' } })), [423, 'locked']);
        assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/comments/${c._id}`)), [423, 'locked']);
        assert.equal((await t.api('PATCH', `/api/v1/comments/${c._id}`, { query: { isLive: true }, body: { isLocked: false } })).status, 200);
        assert.equal((await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { comment: 'changed' } })).status, 200);
        const states = rec.events.filter((e) => e.event['type'] === 'thread-state-change').map((e) => [e.topic, e.event['isClosed']]);
        const topic = pageTopic(t.tenant.tenantId, '/locked');
        assert.deepEqual(states, [[topic, true], [topic, false]]);
      } finally {
        rec.stop();
      }
    });

    test('delete removes the comment and all its replies, live, and fixes the counts', async () => {
      const urlId = '/delete';
      const root = await postComment(t, urlId, { comment: 'root' });
      const child = await postComment(t, urlId, { comment: 'child', parentId: root._id });
      const grandchild = await postComment(t, urlId, { comment: 'grandchild', parentId: child._id });
      const keep = await postComment(t, urlId, { comment: 'keep' });
      await t.api('POST', '/api/v1/votes', { query: { commentId: grandchild._id, direction: 'up', userId: 'v' } });
      const rec = recordEvents(t);
      const r = await t.api<{ action: string; creditsCost: number }>('DELETE', `/api/v1/comments/${root._id}`, { query: { isLive: true } });
      rec.stop();
      assert.deepEqual([r.status, r.body.action, r.body.creditsCost], [200, 'hard-removed', 2]);
      for (const id of [root._id, child._id, grandchild._id]) assert.equal((await t.api('GET', `/api/v1/comments/${id}`)).status, 404);
      assert.deepEqual((await listComments(t, { urlId })).map((c) => c._id), [keep._id]);
      assert.deepEqual(rec.events.filter((e) => e.event['type'] === 'deleted-comment').map((e) => (e.event['comment'] as Comment)._id).sort(), [root._id, child._id, grandchild._id].sort());
      const votes = await t.api<{ appliedAuthorizedVotes: unknown[] }>('GET', '/api/v1/votes', { query: { urlId } });
      assert.deepEqual(votes.body.appliedAuthorizedVotes, []);
      const page = await t.api<{ page: { commentCount: number; rootCommentCount: number } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId } });
      assert.deepEqual([page.body.page.commentCount, page.body.page.rootCommentCount], [1, 1]);
      assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/comments/${root._id}`)), [404, 'not-found']);
    });

    test('live: new comments are published only with isLive, after they are durable', async () => {
      const rec = recordEvents(t);
      try {
        const quiet = await postComment(t, '/live', { comment: 'quiet' });
        const loud = await t.api<{ comment: Comment; creditsCost: number }>('POST', '/api/v1/comments', {
          query: { isLive: true },
          body: { commenterName: 'L', comment: 'loud', url: 'https://example.com/u', urlId: '/live', locale: 'en' },
        });
        assert.equal(loud.body.creditsCost, 2);
        const published = rec.events.filter((e) => e.event['type'] === 'new-comment');
        assert.deepEqual(published.map((e) => [e.topic, (e.event['comment'] as Comment)._id]), [[pageTopic(t.tenant.tenantId, '/live'), loud.body.comment._id]]);
        assert.ok(!published.some((e) => (e.event['comment'] as Comment)._id === quiet._id));
        const stored = await t.server.services.store.get('comments', loud.body.comment._id);
        assert.ok(stored, 'durable before it was published');
      } finally {
        rec.stop();
      }
    });

    test('spam rules, repeats, profanity', async () => {
      const urlId = '/spam';
      await t.api('PATCH', '/api/v1/widget-config', {
        query: { urlId },
        body: { enableProfanityFilter: true, spamRules: [{ actions: ['spam'], commentContains: 'casino' }] },
      });
      const spam = await postComment(t, urlId, { comment: 'best casino' }, { doSpamCheck: true });
      assert.deepEqual([spam.isSpam, spam.approved], [true, false]);
      const clean = await postComment(t, urlId, { comment: 'well shit', commenterEmail: 'r@example.com', commenterName: 'Rep' }, { doSpamCheck: true });
      assert.deepEqual([clean.comment, clean.isSpam === true], ['well ****', false]);
      const repeat = await postComment(t, urlId, { comment: 'WELL   shit', commenterEmail: 'r@example.com', commenterName: 'Rep' }, { doSpamCheck: true });
      assert.equal(repeat.isSpam, true);
      const unchecked = await postComment(t, urlId, { comment: 'casino' });
      assert.equal(unchecked.isSpam, undefined);
      assert.deepEqual((await listComments(t, { urlId, direction: 'OF' })).map((c) => c._id), [clean._id, unchecked._id]);
    });

    test('a comment with a poll writes the poll in the same batch; polls can be disabled', async () => {
      const c = await postComment(t, '/poll-page', { comment: 'vote!', poll: { question: 'Best?', options: [{ label: 'A' }, { label: 'B' }] } });
      assert.equal(c['hasPoll'], true);
      const poll = c['poll'] as { question: string; options: { id: string; label: string; votes: number }[]; totalVotes: number };
      assert.deepEqual([poll.question, poll.options.map((o) => [o.label, o.votes]), poll.totalVotes], ['Best?', [['A', 0], ['B', 0]], 0]);
      const stored = await t.server.services.store.get('polls', c._id);
      assert.equal(stored?.['urlId'], '/poll-page');
      assert.deepEqual(((await getComment(t, c._id))['poll'] as typeof poll).options.map((o) => o.id), poll.options.map((o) => o.id));
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId: '/no-polls' }, body: { disablePolls: true } });
      const refused = await t.api('POST', '/api/v1/comments', {
        body: { commenterName: 'A', comment: 'x', url: 'https://example.com/u', urlId: '/no-polls', locale: 'en', poll: { question: 'Q', options: [{ label: 'a' }, { label: 'b' }] } },
      });
      assert.deepEqual(outcome(refused), [403, 'polls-disabled']);
    });

    test('a comment\'s poll follows it: locked with it, moved with it, deleted with it; votes show in the comment', async () => {
      const c = await postComment(t, '/poll-life', { comment: 'poll', poll: { question: 'Which?', options: [{ label: 'One' }, { label: 'Two' }] } });
      const optionId = (c['poll'] as { options: { id: string }[] }).options[0]!.id;
      const vote = await t.api('POST', '/api/v1/poll-votes', { body: { commentId: c._id, optionId, anonUserId: 'pv1' } });
      assert.equal(vote.status, 200, JSON.stringify(vote.body));

      // The poll actor tells the page after its write is durable; the page then embeds the new counts.
      await eventually(async () => ((await getComment(t, c._id))['poll'] as { totalVotes: number }).totalVotes === 1, 5000);

      assert.equal((await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { isLocked: true } })).status, 200);
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/polls/${c._id}`, { body: { question: 'Changed?' } })), [423, 'locked']);
      // Unlocking and changing in one request is refused, and changes nothing: unlock first.
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { isLocked: false, comment: 'sneaky' } })), [423, 'locked']);
      assert.equal((await getComment(t, c._id)).comment, 'poll');
      assert.equal((await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { isLocked: false } })).status, 200);
      assert.equal((await t.api('PATCH', `/api/v1/polls/${c._id}`, { body: { question: 'Changed?' } })).status, 200);

      assert.equal((await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { urlId: '/poll-life-2' } })).status, 200);
      const moved = await getComment(t, c._id);
      assert.deepEqual([moved.urlId, (moved['poll'] as { question: string }).question], ['/poll-life-2', 'Changed?']);
      assert.equal((await t.server.services.store.get('polls', c._id))?.['urlId'], '/poll-life-2');

      assert.equal((await t.api('DELETE', `/api/v1/comments/${c._id}`)).status, 200);
      assert.deepEqual(outcome(await t.api('GET', `/api/v1/polls/${c._id}`)), [404, 'poll-not-found']);
      assert.equal(await t.server.services.store.get('polls', c._id), undefined);
    });

    test('one username, one email: concurrent claims have one winner', async () => {
      const emails = Array.from({ length: 8 }, (_, i) => `claim${i}@example.com`);
      const results = await inParallel(40, 40, (i) =>
        t.api<{ comment: Comment; code?: string }>('POST', '/api/v1/comments', {
          body: { commenterName: 'Same Name', commenterEmail: emails[i % emails.length], comment: `c${i}`, url: 'https://example.com/u', urlId: `/claims-${i % 3}`, locale: 'en' },
        }),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      assert.ok(refused.every((r) => r.status === 409 && r.body.code === 'username-taken'));
      const winners = new Set(ok.map((r) => r.body.comment['commenterEmail']));
      assert.equal(winners.size, 1);
      assert.equal(ok.length, 5);
      assert.equal(new Set(ok.map((r) => r.body.comment.userId)).size, 1);
      const differentCase = await t.api('POST', '/api/v1/comments', {
        body: { commenterName: 'same   NAME', commenterEmail: 'other@example.com', comment: 'x', url: 'https://example.com/u', urlId: '/claims-x', locale: 'en' },
      });
      assert.deepEqual(outcome(differentCase), [409, 'username-taken']);
    });

    test('moving a comment to another page takes its replies and votes, even under concurrent votes', async () => {
      const from = '/move-from';
      const to = '/move-to';
      const c = await postComment(t, from, { comment: 'mover' });
      const reply = await postComment(t, from, { comment: 'reply', parentId: c._id });
      const stay = await postComment(t, from, { comment: 'stays' });
      const voters = Array.from({ length: 60 }, (_, i) => `mv${i}`);
      const vote = (i: number) => t.api('POST', '/api/v1/votes', { query: { commentId: c._id, direction: i % 3 === 0 ? 'down' : 'up', userId: voters[i]! } });
      // Some votes land before the move, the rest race it.
      const before = await inParallel(15, 15, vote);
      const votes = inParallel(45, 15, (i) => vote(i + 15)).then((rest) => [...before, ...rest]);
      const move = await t.api<{ comment: Comment; creditsCost: number }>('PATCH', `/api/v1/comments/${c._id}`, { body: { urlId: to } });
      assert.deepEqual([move.status, move.body.comment.urlId, move.body.creditsCost], [200, to, 3]);
      const results = await votes;
      assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.find((r) => r.status !== 200)?.body));
      const moved = await getComment(t, c._id);
      assert.deepEqual([moved.urlId, moved.votesUp, moved.votesDown, moved.votes], [to, 40, 20, 20]);
      assert.equal((await getComment(t, reply._id)).urlId, to);
      assert.deepEqual((await listComments(t, { urlId: from })).map((x) => x._id), [stay._id]);
      assert.deepEqual((await listComments(t, { urlId: to, direction: 'OF' })).map((x) => x._id), [c._id, reply._id]);
      const listed = await t.api<{ appliedAuthorizedVotes: unknown[] }>('GET', '/api/v1/votes', { query: { urlId: to } });
      assert.equal(listed.body.appliedAuthorizedVotes.length, 60);
      const counts = async (urlId: string) => (await t.api<{ page: { commentCount: number } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId } })).body.page.commentCount;
      assert.deepEqual([await counts(from), await counts(to)], [1, 2]);
      // A vote made on the old page is deleted through its id on the new one.
      const first = (results[0]!.body as { voteId: string }).voteId;
      assert.equal((await t.api('DELETE', `/api/v1/votes/${first}`)).status, 200);
      assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/votes/${first}`)), [404, 'not-found']);
      const after = await getComment(t, c._id);
      assert.deepEqual([after.votesUp, after.votesDown, after.votes], [40, 19, 21]);
    });

    test('another tenant\'s comment ids behave like unknown ids', async () => {
      const c = await postComment(t, '/mine', { comment: 'private' });
      const other = await t.addTenant();
      const as = { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId };
      const calls: [string, string, Record<string, unknown>?][] = [
        ['GET', `/api/v1/comments/${c._id}`],
        ['PATCH', `/api/v1/comments/${c._id}`, { comment: 'hacked' }],
        ['DELETE', `/api/v1/comments/${c._id}`],
        ['POST', `/api/v1/comments/${c._id}/flag?userId=x`],
        ['POST', `/api/v1/comments/${c._id}/block?userId=x`, {}],
      ];
      for (const [method, path, body] of calls) {
        const r = await t.api(method, path, { auth: 'none', headers: as, ...(body ? { body } : {}) });
        assert.deepEqual(outcome(r), [404, 'not-found'], `${method} ${path}`);
      }
      const vote = await t.api('POST', '/api/v1/votes', { auth: 'none', headers: as, query: { commentId: c._id, direction: 'up', userId: 'x' } });
      assert.deepEqual(outcome(vote), [404, 'invalid-comment-id']);
      const list = await t.api<{ comments: unknown[] }>('GET', '/api/v1/comments', { auth: 'none', headers: as, query: { urlId: '/mine' } });
      assert.deepEqual(list.body.comments, []);
      const mine = await getComment(t, c._id);
      assert.deepEqual([mine.comment, mine.flagCount], ['private', 0]);
    });

    test('comments survive a restart', async () => {
      const c = await postComment(t, '/durable', { comment: 'kept' });
      t = await t.restart();
      assert.equal((await getComment(t, c._id)).comment, 'kept');
      assert.deepEqual((await listComments(t, { urlId: '/durable' })).map((x) => x._id), [c._id]);
    });
  });
}
