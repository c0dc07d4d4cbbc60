/**
 * The widget API's vote (`POST /comments/{tenantId}/{commentId}/vote`, no API key, an anonymous
 * session carried by `sessionId`) on one hot page of 100 comments, each vote durable on LMDB
 * before it is answered, against the hello-world baseline and the durable-write floor
 * (bench/floor-server.ts) with the same requests and connections.
 *
 * Request i votes up as a new reader: its `sessionId` (22 URL-safe characters, as the server
 * issues them) is made of a per-thread tag and i, so every vote is accepted and none is
 * `already-voted`, and the warm-up and measured runs never repeat each other's voters.
 */
import { compareDurableWrites } from '../lib/durable-writes.js';
import type { LoadSpec } from '../lib/load.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { seed } from './votes-post.js';

const URL_ID = 'bench-votes';
const COMMENTS = 100;
/** Votes in flight, as `votes-post` (`--connections N`). */
const DEFAULT_CONNECTIONS = 64;

/** A wrk script: request i votes on comment i mod 100 as reader `b<tag><i>` (a session id of 22 characters). */
function luaScript(tenantId: string, commentIds: readonly string[]): string {
  return `
local ids = { ${commentIds.map((id) => `"${id}"`).join(', ')} }
math.randomseed(os.time() + math.floor(os.clock() * 1e6))
local tag = math.random(1, 1000000000)
local i = 0
local headers = { ["content-type"] = "application/json" }
request = function()
  i = i + 1
  local session = string.format("b%010d%011d", tag, i)
  local path = "/comments/${tenantId}/" .. ids[(i % ${COMMENTS}) + 1] .. "/vote?urlId=${URL_ID}&sessionId=" .. session
  return wrk.format("POST", path, headers, '{"voteDir":"up"}')
end
`;
}

async function run(ctx: SuiteContext): Promise<void> {
  const baseline = await ctx.startBaseline();
  const server = await ctx.startServer();
  ctx.progress(`seeding ${COMMENTS} comments`);
  const ids = await seed(server);
  const tenantId = server.tenant.tenantId;

  const probe = await fetch(`${server.url}/comments/${tenantId}/${ids[0]}/vote?urlId=${URL_ID}&sessionId=probeprobeprobeprobe00`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"voteDir":"up"}',
  });
  const probeText = await probe.text();
  if (probe.status !== 200) throw new Error(`POST /comments/{tenantId}/{commentId}/vote answered ${probe.status} ${probeText}`);

  const connections = ctx.options.connections ?? DEFAULT_CONNECTIONS;
  const subject: LoadSpec = { url: `${server.url}/comments/${tenantId}/vote`, method: 'POST', lua: luaScript(tenantId, ids), connections, serverPid: server.pid };
  await compareDurableWrites(ctx, {
    label: `POST /comments/{tenantId}/{commentId}/vote (widget API, one page, ${COMMENTS} comments, a new reader per vote, durable)`,
    subject,
    baselineUrl: baseline.url,
    what: 'vote',
    rpsLabel: 'durable public votes per second',
  });
  ctx.note(`${connections} connections. A public vote resolves the reader (the session's public id: a SHA-256), finds the comment's page, commits the vote on the page actor (batched with the votes in flight), counts it in the tenant's daily usage in memory, and answers an edit key (an HMAC).`);
}

/** See the module comment. */
export const publicVotes: Suite = {
  name: 'public-votes',
  description: 'POST /comments/{tenantId}/{commentId}/vote (widget API, anonymous sessions, durable on LMDB) versus the durable-write floor and a bare uWebSockets.js hello world.',
  targets: [
    { figure: 'ofFloor', op: '>=', value: 0.5, description: 'share of the durable-write floor' },
    { figure: 'failedRequests', op: '<=', value: 0, description: 'failed requests under load' },
  ],
  run,
};
