/**
 * The cost of a new comment on a page with many subscribers (docs/notifications.md): the time
 * to the API's answer, which must not grow with the subscribers (the fan-out runs off the
 * request path), against the same comment on a page nobody follows; and the time until every
 * subscriber's notification is durable (counted through the API), with the server's CPU for
 * it. `NOTIFY_BENCH_SUBSCRIBERS` changes the number (default 10,000); subscriptions are made
 * through the API (16 in flight). LMDB, one server.
 */
import { performance } from 'node:perf_hooks';
import { processCpuSeconds } from '../lib/cpu.js';
import { callApi as api } from '../lib/api.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const SUBSCRIBERS = Number(process.env['NOTIFY_BENCH_SUBSCRIBERS'] ?? 10_000);
const IN_FLIGHT = 16;
/** Comments timed on each page (one after the other). */
const ROUNDS = 5;
const FOLLOWED = 'bench-followed';
const QUIET = 'bench-quiet';

async function subscribeAll(server: ServerProcess, progress: (m: string) => void): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < SUBSCRIBERS; i = next++) {
        await api(server, 'POST', '/api/v1/subscriptions', { urlId: FOLLOWED, userId: `follower-${i}` });
        if (i % 2500 === 0) progress(`${i.toLocaleString('en-US')} subscriptions`);
      }
    }),
  );
}

/** Posts a root comment; answers its id and how long the API took to answer. */
async function post(server: ServerProcess, urlId: string, i: number): Promise<{ id: string; ms: number }> {
  const started = performance.now();
  const body = await api<{ comment: { _id: string } }>(server, 'POST', '/api/v1/comments', { commenterName: 'Writer', comment: `News ${i}`, url: `https://example.com/${urlId}`, urlId, locale: 'en_us' });
  return { id: body.comment._id, ms: performance.now() - started };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function notified(server: ServerProcess, commentId: string): Promise<number> {
  const body = await api<{ count: number }>(server, 'GET', `/api/v1/notifications/count?fromCommentId=${encodeURIComponent(commentId)}`);
  return body.count;
}

async function run(ctx: SuiteContext): Promise<void> {
  const server = await ctx.startServer({});
  ctx.progress(`subscribing ${SUBSCRIBERS.toLocaleString('en-US')} users to one page`);
  await subscribeAll(server, ctx.progress);

  const quiet: number[] = [];
  const followed: number[] = [];
  const fanouts: number[] = [];
  let cpu = 0;
  for (let round = 0; round < ROUNDS; round++) {
    quiet.push((await post(server, QUIET, round)).ms);
    const cpuBefore = processCpuSeconds(server.pid) ?? 0;
    const started = performance.now();
    const { id, ms } = await post(server, FOLLOWED, round);
    followed.push(ms);
    while ((await notified(server, id)) < SUBSCRIBERS) await new Promise((r) => setTimeout(r, 50));
    fanouts.push((performance.now() - started) / 1000);
    cpu += (processCpuSeconds(server.pid) ?? 0) - cpuBefore;
    ctx.progress(`round ${round + 1}: answered in ${ms.toFixed(1)} ms, all notified after ${fanouts.at(-1)!.toFixed(2)} s`);
  }
  const fanout = median(fanouts);
  ctx.row({ label: `notifications made durable for a comment on a page with ${SUBSCRIBERS.toLocaleString('en-US')} subscribers`, role: 'subject', throughput: SUBSCRIBERS / fanout, unit: 'notifications/s' });
  ctx.figure({ key: 'answerQuietMs', label: 'API answer of a comment, page without subscribers (median)', value: median(quiet), unit: 'ms', digits: 1 });
  ctx.figure({ key: 'answerFollowedMs', label: `API answer of a comment, page with ${SUBSCRIBERS.toLocaleString('en-US')} subscribers (median)`, value: median(followed), unit: 'ms', digits: 1 });
  ctx.figure({ key: 'answerRatio', label: 'answer with subscribers ÷ without', value: median(followed) / median(quiet), unit: '×', digits: 2 });
  ctx.figure({ key: 'fanoutSeconds', label: 'time until every notification is durable (median)', value: fanout, unit: 's', digits: 2 });
  ctx.figure({ key: 'fanoutCpuUs', label: 'server CPU per notification (fan-out, counts, polling included)', value: (cpu * 1e6) / (SUBSCRIBERS * ROUNDS), unit: 'µs', digits: 1 });
  ctx.note('Subscribers are users without email addresses: the figures are the notifications and unread counts, not email.');
  ctx.note(`Each round posts to the quiet page, then to the followed one, and polls the notification count every 50 ms until it reaches ${SUBSCRIBERS.toLocaleString('en-US')}.`);
}

export const notifyFanout: Suite = {
  name: 'notify-fanout',
  description: `A new comment on a page with ${SUBSCRIBERS.toLocaleString('en-US')} subscribers: time to the API answer (against a page nobody follows) and until every notification is durable.`,
  targets: [{ figure: 'answerRatio', op: '<=', value: 2, description: 'the answer does not wait for the fan-out' }],
  run,
};
