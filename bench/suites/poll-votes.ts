/**
 * `POST /api/v1/poll-votes` on one hot poll: many anonymous voters voting and moving their
 * votes, each change durable on LMDB before it is answered, against the hello-world baseline.
 *
 * Requests come from a wrk Lua script: request i is voter i mod VOTERS, on option (pass +
 * voter) mod 4 where pass = i ÷ VOTERS, so a voter's first request records a vote and each later
 * one moves it. Each voter has its own address (`ip` in the body, as a server calling on behalf
 * of its readers sends), which keeps every voter far below the anonymous rate limit. Voter ids
 * carry a per-run tag, so each load run starts with fresh voters. Every vote passes through the
 * one poll actor, and every anonymous vote also reads the page's settings from the tenant actor.
 */
import type { ServerProcess } from '../lib/processes.js';
import { compareDurableWrites } from '../lib/durable-writes.js';
import type { LoadSpec } from '../lib/load.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const URL_ID = 'bench-poll';
const OPTIONS = 4;
const VOTERS = 50_000;
/** The poll actor and the tenant ledger each commit in batches; more requests in flight make bigger batches. */
const DEFAULT_CONNECTIONS = 256;

interface Poll {
  options: { id: string; votes: number }[];
  totalVotes: number;
}

async function call<T>(server: ServerProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...server.authHeaders, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

function luaScript(commentId: string, optionIds: readonly string[]): string {
  return `
local options = { ${optionIds.map((id) => `"${id}"`).join(', ')} }
math.randomseed(os.time() + math.floor(os.clock() * 1e6))
local tag = tostring(math.random(1, 1000000000))
local i = 0
request = function()
  local voter = i % ${VOTERS}
  local pass = math.floor(i / ${VOTERS})
  local option = options[((pass + voter) % ${OPTIONS}) + 1]
  local ip = "10." .. math.floor(voter / 65536) .. "." .. (math.floor(voter / 256) % 256) .. "." .. (voter % 256)
  i = i + 1
  return wrk.format(nil, nil, nil, '{"commentId":"${commentId}","optionId":"' .. option .. '","anonUserId":"a' .. tag .. '-' .. voter .. '","ip":"' .. ip .. '"}')
end
`;
}

/** Reads every vote back and compares it with the poll's counts. */
async function audit(server: ServerProcess, commentId: string): Promise<{ stored: number; mismatches: number; duplicates: number }> {
  const { poll } = await call<{ poll: Poll }>(server, 'GET', `/api/v1/polls/${commentId}`);
  const perOption = new Map<string, number>();
  const voters = new Set<string>();
  let duplicates = 0;
  let stored = 0;
  for (let skip = 0; ; skip += 1000) {
    const { pollVotes } = await call<{ pollVotes: { voterId: string; optionId: string }[] }>(
      server,
      'GET',
      `/api/v1/poll-votes?commentId=${commentId}&skip=${skip}`,
    );
    for (const vote of pollVotes) {
      if (voters.has(vote.voterId)) duplicates++;
      voters.add(vote.voterId);
      perOption.set(vote.optionId, (perOption.get(vote.optionId) ?? 0) + 1);
    }
    stored += pollVotes.length;
    if (pollVotes.length < 1000) break;
  }
  let mismatches = poll.totalVotes === stored ? 0 : 1;
  for (const option of poll.options) if (option.votes !== (perOption.get(option.id) ?? 0)) mismatches++;
  return { stored, mismatches, duplicates };
}

async function run(ctx: SuiteContext): Promise<void> {
  const baseline = await ctx.startBaseline();
  const server = await ctx.startServer();
  ctx.progress('creating the poll');
  const { comment } = await call<{ comment: { _id: string; poll: Poll } }>(server, 'POST', '/api/v1/comments', {
    commenterName: 'Pollster',
    comment: 'Which one?',
    url: 'https://example.com/poll',
    urlId: URL_ID,
    locale: 'en_us',
    // Votes readable with the API key, so the suite can audit them afterwards.
    poll: { question: 'Which one?', options: Array.from({ length: OPTIONS }, (_, i) => ({ label: `Option ${i + 1}` })), privacy: 1 },
  });
  const commentId = comment._id;
  const optionIds = comment.poll.options.map((o) => o.id);
  await call(server, 'POST', '/api/v1/poll-votes', { commentId, optionId: optionIds[0], anonUserId: 'probe', ip: '192.0.2.1' });

  const connections = ctx.options.connections ?? DEFAULT_CONNECTIONS;
  const subject: LoadSpec = {
    url: `${server.url}/api/v1/poll-votes`,
    method: 'POST',
    headers: { ...server.authHeaders, 'content-type': 'application/json' },
    lua: luaScript(commentId, optionIds),
    connections,
    serverPid: server.pid,
  };
  await compareDurableWrites(ctx, {
    label: `POST /api/v1/poll-votes (one poll, ${VOTERS} anonymous voters, votes and moves, durable)`,
    subject,
    baselineUrl: baseline.url,
    what: 'vote',
    rpsLabel: 'durable poll votes per second',
  });

  ctx.progress('auditing the stored votes');
  const { stored, mismatches, duplicates } = await audit(server, commentId);
  ctx.figure({ key: 'storedVotes', label: 'votes stored after the runs (one per voter)', value: stored, unit: '' });
  ctx.figure({ key: 'countMismatches', label: 'poll counts that differ from the stored votes', value: mismatches, unit: '' });
  ctx.figure({ key: 'duplicateVoters', label: 'voters holding more than one vote', value: duplicates, unit: '' });
  const rss = server.rssBytes();
  if (rss !== undefined) ctx.figure({ key: 'serverRssMb', label: 'server resident memory after the load', value: rss / 1024 / 1024, unit: 'MB', digits: 0 });
  ctx.note(
    `${connections} connections on one poll: every vote waits for the poll actor's durable commit (and the ledger's), ` +
      'which batch the votes in flight; the poll document is rewritten once per batch however many votes it carries.',
  );
}

/** See the module comment. */
export const pollVotes: Suite = {
  name: 'poll-votes',
  description:
    'POST /api/v1/poll-votes on one hot poll from many anonymous voters, votes and moves, durable on LMDB (API key, credit charged) ' +
    'versus a bare uWebSockets.js hello world.',
  targets: [
    { figure: 'ratio', op: '>=', value: 0.25, description: 'share of hello-world throughput' },
    { figure: 'failedRequests', op: '<=', value: 0, description: 'failed requests under load' },
    { figure: 'countMismatches', op: '<=', value: 0, description: 'counts equal the stored votes' },
    { figure: 'duplicateVoters', op: '<=', value: 0, description: 'one vote per voter' },
  ],
  run,
};
