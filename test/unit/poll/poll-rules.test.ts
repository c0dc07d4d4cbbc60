import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../../engine/errors.js';
import { createPoll, hashAddress, type PollDoc, type PollVoteDoc } from '../../../actors/poll/poll-model.js';
import { livePoll } from '../../../actors/poll/poll-events.js';
import {
  assertPrivacyChange,
  castVote,
  isClosed,
  patchPoll,
  recount,
  replacePoll,
  retractVote,
  voteCounts,
  type VoteRequest,
} from '../../../actors/poll/poll-rules.js';

const NOW = Date.parse('2030-01-01T00:00:00.000Z');

function ids(): () => string {
  let n = 0;
  return () => `opt${++n}`;
}

function poll(labels = ['A', 'B', 'C'], extra: Partial<Parameters<typeof createPoll>[0]> = {}): PollDoc {
  return createPoll(
    { question: 'Q?', options: labels.map((label) => ({ label })), ...extra },
    { tenantId: 't1', commentId: 'c1', urlId: '/p', nowMs: NOW, newOptionId: ids() },
  );
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
  return 'no error';
}

function request(voterId: string, optionId: string, voteId = `vote-${voterId}-${optionId}`): VoteRequest {
  return { voteId, voterId, optionId, userId: null, anonUserId: voterId, ip: null };
}

/** Casts votes in order; returns the poll and the votes by voter. */
function withVotes(start: PollDoc, votes: [voter: string, option: string][]): { poll: PollDoc; votes: Map<string, PollVoteDoc> } {
  let current = start;
  const byVoter = new Map<string, PollVoteDoc>();
  for (const [voter, option] of votes) {
    const out = castVote(current, byVoter.get(voter), request(voter, option), NOW);
    current = out.poll;
    byVoter.set(voter, out.vote);
  }
  return { poll: current, votes: byVoter };
}

describe('createPoll', () => {
  test('assigns ids and defaults, refuses ids, repeated or blank labels and a closing time not in the future', () => {
    const p = poll();
    assert.deepEqual(p.options, [
      { id: 'opt1', label: 'A', votes: 0 },
      { id: 'opt2', label: 'B', votes: 0 },
      { id: 'opt3', label: 'C', votes: 0 },
    ]);
    assert.deepEqual([p.totalVotes, p.closesAt, p.privacy, p.requireVoteToSeeResults, p.generation], [0, null, 0, false, 0]);
    const at = { tenantId: 't', commentId: 'c', urlId: '/', nowMs: NOW, newOptionId: ids() };
    assert.equal(code(() => createPoll({ question: 'Q', options: [{ id: 'x', label: 'A' }, { label: 'B' }] }, at)), 'poll-invalid');
    assert.equal(code(() => createPoll({ question: 'Q', options: [{ label: 'Yes' }, { label: ' YES' }] }, at)), 'poll-invalid');
    assert.equal(code(() => createPoll({ question: 'Q', options: [{ label: ' ' }, { label: 'B' }] }, at)), 'poll-invalid');
    assert.equal(code(() => createPoll({ question: ' \t', options: [{ label: 'A' }, { label: 'B' }] }, at)), 'poll-invalid');
    const past = new Date(NOW).toISOString();
    assert.equal(code(() => createPoll({ question: 'Q', options: [{ label: 'A' }, { label: 'B' }], closesAt: past }, at)), 'poll-invalid');
  });
});

describe('votes', () => {
  test('a first vote counts, a move shifts the count and keeps id and createdAt, a repeat changes nothing', () => {
    const p = poll();
    const first = castVote(p, undefined, request('v', 'opt1'), NOW);
    assert.equal(first.changed, true);
    assert.deepEqual([first.poll.options.map((o) => o.votes), first.poll.totalVotes], [[1, 0, 0], 1]);
    assert.deepEqual([first.vote.voterId, first.vote.optionId, first.vote.generation], ['v', 'opt1', 0]);

    const moved = castVote(first.poll, first.vote, request('v', 'opt3', 'ignored'), NOW + 5000);
    assert.deepEqual([moved.poll.options.map((o) => o.votes), moved.poll.totalVotes], [[0, 0, 1], 1]);
    assert.deepEqual([moved.vote._id, moved.vote.createdAt], [first.vote._id, first.vote.createdAt]);
    assert.equal(moved.vote.updatedAt, new Date(NOW + 5000).toISOString());

    const again = castVote(moved.poll, moved.vote, request('v', 'opt3'), NOW + 9000);
    assert.equal(again.changed, false);
    assert.equal(again.poll, moved.poll);
    assert.equal(again.vote, moved.vote);
    assert.equal(code(() => castVote(p, undefined, request('v', 'nope'), NOW)), 'poll-invalid-option');
    assert.deepEqual(p.options.map((o) => o.votes), [0, 0, 0], 'the input poll is never mutated');
  });

  test('retracting gives the vote back', () => {
    const { poll: p, votes } = withVotes(poll(), [['a', 'opt1'], ['b', 'opt1'], ['c', 'opt2']]);
    const after = retractVote(p, votes.get('b')!);
    assert.deepEqual([after.options.map((o) => o.votes), after.totalVotes], [[1, 1, 0], 2]);
  });

  test('a poll closes when closesAt passes', () => {
    const p = poll(['A', 'B'], { closesAt: new Date(NOW + 1000).toISOString() });
    assert.equal(isClosed(p, NOW + 999), false);
    assert.equal(isClosed(p, NOW + 1000), true);
    assert.equal(isClosed(poll(), NOW * 2), false);
  });
});

describe('replacePoll', () => {
  const at = { replaceVotes: false, nowMs: NOW + 1, newOptionId: () => 'fresh' };

  test('kept ids keep their votes in the new order; new options start at zero; omitted options are removed', () => {
    const { poll: p } = withVotes(poll(), [['a', 'opt1'], ['b', 'opt2'], ['c', 'opt2'], ['d', 'opt3']]);
    const r = replacePoll(p, { question: 'Q2', options: [{ id: 'opt2', label: 'B' }, { label: 'New' }, { id: 'opt1', label: 'A1' }] }, at);
    assert.deepEqual(r.poll.options, [
      { id: 'opt2', label: 'B', votes: 2 },
      { id: 'fresh', label: 'New', votes: 0 },
      { id: 'opt1', label: 'A1', votes: 1 },
    ]);
    assert.equal(r.poll.totalVotes, 3);
    assert.deepEqual([r.dropAllVotes, [...r.removedOptionIds]], [false, ['opt3']]);
    assert.equal(r.poll.generation, p.generation);
  });

  test('no ids on a poll with votes needs replaceVotes; with it every vote goes and the generation moves on', () => {
    const { poll: p } = withVotes(poll(), [['a', 'opt1']]);
    const input = { question: 'Q', options: [{ label: 'X' }, { label: 'Y' }] };
    assert.equal(code(() => replacePoll(p, input, at)), 'replace-votes-required');
    const r = replacePoll(p, input, { ...at, replaceVotes: true });
    assert.deepEqual([r.dropAllVotes, r.poll.totalVotes, r.poll.generation], [true, 0, 1]);
    const empty = replacePoll(poll(), input, at);
    assert.deepEqual([empty.dropAllVotes, empty.poll.generation, empty.removedOptionIds.size], [false, 0, 3]);
  });

  test('replaceVotes is ignored when options keep their ids', () => {
    const { poll: p } = withVotes(poll(), [['a', 'opt1'], ['b', 'opt2']]);
    const r = replacePoll(p, { question: 'Q', options: [{ id: 'opt1', label: 'A' }, { id: 'opt2', label: 'B' }] }, { ...at, replaceVotes: true });
    assert.deepEqual([r.dropAllVotes, r.poll.totalVotes], [false, 2]);
  });

  test('unknown or repeated ids and repeated labels are poll-invalid; omitted settings reset', () => {
    const p = poll(['A', 'B'], { privacy: 2, requireVoteToSeeResults: true, closesAt: new Date(NOW + 10_000).toISOString() });
    assert.equal(code(() => replacePoll(p, { question: 'Q', options: [{ id: 'zzz', label: 'A' }, { label: 'B' }] }, at)), 'poll-invalid');
    assert.equal(code(() => replacePoll(p, { question: 'Q', options: [{ id: 'opt1', label: 'A' }, { id: 'opt1', label: 'B' }] }, at)), 'poll-invalid');
    assert.equal(code(() => replacePoll(p, { question: 'Q', options: [{ id: 'opt1', label: 'Same' }, { label: 'same' }] }, at)), 'poll-invalid');
    const r = replacePoll(p, { question: 'Q', options: [{ id: 'opt1', label: 'A' }, { id: 'opt2', label: 'B' }] }, at);
    assert.deepEqual([r.poll.privacy, r.poll.requireVoteToSeeResults, r.poll.closesAt], [0, false, null]);
  });

  test('privacy widens only when no vote survives the replacement', () => {
    const { poll: p } = withVotes(poll(['A', 'B']), [['a', 'opt1']]);
    assert.equal(code(() => replacePoll(p, { question: 'Q', options: [{ id: 'opt1', label: 'A' }], privacy: 1 }, at)), 'poll-privacy-locked');
    const r = replacePoll(p, { question: 'Q', options: [{ id: 'opt2', label: 'B' }, { label: 'C' }], privacy: 2 }, at);
    assert.deepEqual([r.poll.privacy, r.poll.totalVotes], [2, 0]);
  });
});

describe('patchPoll and privacy', () => {
  test('relabels by id keeping votes and order; closes and reopens; refuses unknown ids and clashing labels', () => {
    const { poll: p } = withVotes(poll(), [['a', 'opt2']]);
    const relabelled = patchPoll(p, { options: [{ id: 'opt2', label: 'Bee' }] }, NOW);
    assert.deepEqual(relabelled.options.map((o) => [o.id, o.label, o.votes]), [['opt1', 'A', 0], ['opt2', 'Bee', 1], ['opt3', 'C', 0]]);
    const closed = patchPoll(p, { closesAt: new Date(NOW - 1).toISOString() }, NOW);
    assert.equal(isClosed(closed, NOW), true);
    assert.equal(isClosed(patchPoll(closed, { closesAt: null }, NOW), NOW), false);
    assert.equal(patchPoll(closed, { question: 'Other' }, NOW).closesAt, closed.closesAt, 'fields not named are kept');
    assert.equal(code(() => patchPoll(p, { options: [{ id: 'opt9', label: 'X' }] }, NOW)), 'poll-invalid');
    assert.equal(code(() => patchPoll(p, { options: [{ id: 'opt1', label: 'c' }] }, NOW)), 'poll-invalid');
    assert.equal(code(() => patchPoll(p, { privacy: 2 }, NOW)), 'poll-privacy-locked');
    assert.equal(patchPoll(poll(), { privacy: 2 }, NOW).privacy, 2);
  });

  test('narrowing is always allowed: everyone → admins → anonymous', () => {
    assertPrivacyChange(2, 1, 10);
    assertPrivacyChange(1, 0, 10);
    assertPrivacyChange(2, 0, 10);
    assertPrivacyChange(0, 2, 0);
    assert.equal(code(() => assertPrivacyChange(0, 1, 1)), 'poll-privacy-locked');
    assert.equal(code(() => assertPrivacyChange(1, 2, 1)), 'poll-privacy-locked');
  });
});

describe('loading', () => {
  test('recount takes counts from the votes and keeps the same object when they agree', () => {
    const { poll: p, votes } = withVotes(poll(), [['a', 'opt1'], ['b', 'opt3'], ['c', 'opt3']]);
    assert.equal(recount(p, votes.values()), p);
    const wrong = { ...p, totalVotes: 7, options: p.options.map((o) => ({ ...o, votes: 2 })) };
    const fixed = recount(wrong, votes.values());
    assert.deepEqual([fixed.options.map((o) => o.votes), fixed.totalVotes], [[1, 0, 2], 3]);
  });

  test('a vote counts only in its generation and while its option exists', () => {
    const { poll: p, votes } = withVotes(poll(), [['a', 'opt1']]);
    const vote = votes.get('a')!;
    assert.equal(voteCounts(p, vote), true);
    assert.equal(voteCounts({ ...p, generation: 1 }, vote), false);
    assert.equal(voteCounts({ ...p, options: p.options.slice(1) }, vote), false);
  });
});

describe('what is shown', () => {
  test('the live poll hides counts when a vote is required to see results', () => {
    const { poll: p } = withVotes(poll(['A', 'B']), [['a', 'opt1']]);
    assert.deepEqual(livePoll(p)['options'], [
      { id: 'opt1', label: 'A', votes: 1 },
      { id: 'opt2', label: 'B', votes: 0 },
    ]);
    const hidden = livePoll({ ...p, requireVoteToSeeResults: true });
    assert.deepEqual(hidden['options'], [
      { id: 'opt1', label: 'A' },
      { id: 'opt2', label: 'B' },
    ]);
    assert.equal('totalVotes' in hidden, false);
    assert.equal(hidden['resultsHidden'], true);
    assert.equal('ipKey' in livePoll({ ...p, ipKey: 'secret' }), false);
  });

  test('addresses are stored as a keyed hash: stable per key, different across keys', () => {
    const h = hashAddress('k1', '198.51.100.7');
    assert.match(h, /^[0-9a-f]{32}$/);
    assert.equal(hashAddress('k1', '198.51.100.7'), h);
    assert.notEqual(hashAddress('k2', '198.51.100.7'), h);
    assert.notEqual(hashAddress('k1', '198.51.100.8'), h);
  });
});
