/**
 * Deleting users with their comments (docs/identity.md): an SSO user with 10,000 comments over
 * 1,000 pages is deleted with `deleteComments=true`, once removing the comments (thread mode:
 * replies go too) and once anonymizing another such user's. Reported: the wall time of the
 * DELETE (it answers once the job is done), the comments handled per second, the server's CPU
 * for it, and its resident memory before, at its peak during, and after. The job reads 250
 * comments per round; the page actors it wakes are bounded by MAX_ACTIVE_ACTORS like any other.
 *
 * `USER_ERASE_COMMENTS` and `USER_ERASE_PAGES` change the shape, `USER_ERASE_MAX_ACTORS` the
 * server's `MAX_ACTIVE_ACTORS`; comments are made through the API (16 in flight), like a site's.
 */
import { performance } from 'node:perf_hooks';
import { processCpuSeconds } from '../lib/cpu.js';
import { callApi as api } from '../lib/api.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const COMMENTS = Number(process.env['USER_ERASE_COMMENTS'] ?? 10_000);
const PAGES = Number(process.env['USER_ERASE_PAGES'] ?? 1_000);
/** `MAX_ACTIVE_ACTORS` of the server (unset: its default): a low one shows the job's own memory. */
const MAX_ACTORS = process.env['USER_ERASE_MAX_ACTORS'];
const IN_FLIGHT = 16;
const MB = 1024 * 1024;

/** An SSO user with `COMMENTS` comments spread over `PAGES` pages. */
async function author(server: ServerProcess, id: string, progress: (m: string) => void): Promise<void> {
  await api(server, 'POST', '/api/v1/sso-users', { id, username: id, email: `${id}@example.com` });
  const userId = `${server.tenant.tenantId}:${id}`;
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < COMMENTS; i = next++) {
        await api(server, 'POST', '/api/v1/comments', {
          commenterName: id,
          comment: `Comment ${i} by ${id}, of an everyday length: a sentence or two.`,
          url: `https://example.com/${id}/${i % PAGES}`,
          urlId: `${id}-page-${i % PAGES}`,
          locale: 'en_us',
          userId,
        });
        if (i % 2000 === 0) progress(`${id}: ${i.toLocaleString('en-US')} comments`);
      }
    }),
  );
}

async function erase(ctx: SuiteContext, server: ServerProcess, id: string, mode: 0 | 1, label: string): Promise<void> {
  const rssBefore = server.rssBytes() ?? 0;
  const cpuBefore = processCpuSeconds(server.pid) ?? 0;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, server.rssBytes() ?? 0)), 100);
  const started = performance.now();
  await api(server, 'DELETE', `/api/v1/sso-users/${id}?deleteComments=true&commentDeleteMode=${mode}`);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpu = (processCpuSeconds(server.pid) ?? 0) - cpuBefore;
  const rssAfter = server.rssBytes() ?? 0;
  const left = await api(server, 'GET', `/api/v1/comments?userId=${encodeURIComponent(`${server.tenant.tenantId}:${id}`)}&limit=1`);
  if ((left['comments'] as unknown[]).length !== 0) throw new Error(`${label}: comments of the user are left`);
  ctx.row({ label: `${label}: ${COMMENTS.toLocaleString('en-US')} comments over ${PAGES.toLocaleString('en-US')} pages`, role: 'subject', throughput: COMMENTS / seconds, unit: 'comments/s' });
  const key = mode === 0 ? 'remove' : 'anonymize';
  ctx.figure({ key: `${key}Seconds`, label: `${label}: DELETE wall time`, value: seconds, unit: 's', digits: 1 });
  ctx.figure({ key: `${key}CpuSeconds`, label: `${label}: server CPU`, value: cpu, unit: 's', digits: 1 });
  ctx.figure({ key: `${key}RssBeforeMb`, label: `${label}: server RSS before`, value: rssBefore / MB, unit: 'MB', digits: 0 });
  ctx.figure({ key: `${key}RssPeakMb`, label: `${label}: server RSS at its peak during`, value: peak / MB, unit: 'MB', digits: 0 });
  ctx.figure({ key: `${key}RssAfterMb`, label: `${label}: server RSS after`, value: rssAfter / MB, unit: 'MB', digits: 0 });
}

export const userErase: Suite = {
  name: 'user-erase',
  description: `Deleting an SSO user with ${COMMENTS.toLocaleString('en-US')} comments over ${PAGES.toLocaleString('en-US')} pages (deleteComments=true), removed and anonymized, through the page actors: wall time, CPU and server memory.`,
  targets: [
    { figure: 'removeRssPeakMb', op: '<=', value: 1024, description: 'bounded memory: well under the machine' },
    { figure: 'removeSeconds', op: '<=', value: 300, description: 'a large user goes within minutes' },
  ],
  async run(ctx) {
    const server = await ctx.startServer(MAX_ACTORS === undefined ? {} : { env: { MAX_ACTIVE_ACTORS: MAX_ACTORS } });
    ctx.progress(`seeding two users of ${COMMENTS} comments each`);
    await author(server, 'remove-me', ctx.progress);
    await author(server, 'anonymize-me', ctx.progress);
    ctx.progress('deleting (Remove)');
    await erase(ctx, server, 'remove-me', 0, 'Remove');
    ctx.progress('deleting (Anonymize)');
    await erase(ctx, server, 'anonymize-me', 1, 'Anonymize');
    ctx.note('The DELETE answers once the durable job is done; a crash midway resumes at the next start (tested in test/integration/user-deletion.test.ts).');
    ctx.note(`LMDB, one server process, MAX_ACTIVE_ACTORS ${MAX_ACTORS ?? '50,000 (the default)'}: the page actors woken stay in memory within it until idle, so the RSS growth is theirs; the job itself holds one round of 250 comments.`);
  },
};
