/**
 * The hostile-caller harness: a real server process with the default limits, sent what an
 * attacker would send (floods of reactions and pages from many addresses, cookie-less
 * sessions, text storage cannot hold, oversized free-form fields, a websocket frame flood,
 * malformed HTTP), asserting that it stays up, answers 4xx, keeps serving an ordinary tenant
 * and reader, keeps its memory bounded, and that the page it was attacked through still reads
 * after a restart.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { SETTINGS } from '../../engine/config.js';
import { rawRequest, rssMiB, tally } from '../fixtures/hostile.js';
import { demoHeaders, type ServerProcess, spawnServer } from '../fixtures/server-process.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { storages, withQuery } from '../fixtures/server.js';
import { inParallel as flood } from './page-helpers.js';

/** The operator's defaults for the public limits (the fixture lifts them for other tests). */
const DEFAULT_LIMITS: Record<string, string> = Object.fromEntries(
  [SETTINGS.publicReadRate, SETTINGS.publicReadBurst, SETTINGS.publicWriteRate, SETTINGS.publicWriteBurst, SETTINGS.anonSessionsPerHour].map((s) => [s.env, String(s.default)]),
);
/** A lower bound of pages per hour than the default, so that the harness reaches it quickly. */
const PAGES_PER_HOUR = 200;
/** How much the server's memory may grow over the whole attack. */
const RSS_GROWTH_MAX_MIB = 250;

let address = 0;
/** A new client address each call, as a botnet has. */
function newClient(): Record<string, string> {
  address++;
  return { 'x-forwarded-for': `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}` };
}

// On LMDB only: on FerretDB (SQLite underneath) the floods measure its write throughput, not the
// server's defences. Every defence is also tested on both storages in input-door, public-limits
// and public-canary.
for (const storage of storages().filter((s) => s === 'lmdb')) {
  describe(`hostile callers on ${storage}`, () => {
    let run: Promise<void>;
    let release: () => void;
    let server: ServerProcess;
    let env: Record<string, string>;
    before(async () => {
      let ready!: () => void;
      const started = new Promise<void>((resolve) => (ready = resolve));
      const finished = new Promise<void>((resolve) => (release = resolve));
      run = withServerStorage(storage, 'hostile', async (storageEnv) => {
        env = { ...storageEnv, ...DEFAULT_LIMITS, TRUST_PROXY: 'true', ANON_PAGES_PER_HOUR: String(PAGES_PER_HOUR) };
        server = await spawnServer(env);
        ready();
        await finished;
      });
      await started;
    });
    after(async () => {
      if (server.child.exitCode === null) await server.kill('SIGKILL');
      release();
      await run;
    });

    test('the server stays up, answers 4xx, serves others and keeps its memory bounded', async () => {
      const api = demoHeaders(server);
      const tenantId = server.demo!.tenantId;
      const reacts = `${server.url}/page-reacts/v2/${tenantId}`;
      const likes = `${server.url}/page-reacts/v1/likes/${tenantId}`;
      const bystander = async () => {
        const read = await checkedFetch(withQuery(`${server.url}/api/v1/comments`, { urlId: '/bystander' }), { headers: api });
        assert.equal(read.status, 200, 'an ordinary API call is served');
        // After the restart the server listens on another port: the URL is made anew.
        const widget = await checkedFetch(withQuery(`${server.url}/page-reacts/v1/likes/${tenantId}`, { urlId: '/bystander' }), { headers: newClient() });
        assert.equal(widget.status, 200, 'an ordinary reader is served');
      };
      await bystander();
      const rssBefore = rssMiB(server.child.pid!);

      // Reaction ids from a botnet: each address, each request a new anonymous reader.
      const newIds = await flood(1500, 32, (i) => checkedFetch(withQuery(reacts, { urlId: '/flood', id: `r${i}` }), { method: 'POST', headers: newClient() }).then((r) => r.status));
      assert.deepEqual(Object.keys(tally(newIds)).sort(), ['200', '409'], JSON.stringify(tally(newIds)));
      assert.equal(tally(newIds)[200], Number(50), 'maxReactionIdsPerPage by default');
      const sameId = await flood(1000, 32, () => checkedFetch(withQuery(reacts, { urlId: '/flood', id: 'r0' }), { method: 'POST', headers: newClient() }).then((r) => r.status));
      assert.deepEqual(tally(sameId), { 200: 1000 });
      await bystander();

      // Pages from a botnet: a like on a new urlId each.
      const pages = await flood(400, 32, (i) => checkedFetch(withQuery(likes, { urlId: `/spam-${i}` }), { method: 'POST', headers: newClient() }).then((r) => r.status));
      // The reactions above made the first page.
      assert.deepEqual(tally(pages), { 200: PAGES_PER_HOUR - 1, 429: 400 - PAGES_PER_HOUR + 1 });

      // One client without cookies: a bounded number of sessions, then a bounded number of requests.
      const one = { 'x-forwarded-for': '192.0.2.77' };
      const single = await flood(300, 16, () => checkedFetch(withQuery(likes, { urlId: '/flood' }), { headers: one }).then((r) => r.status));
      assert.equal(tally(single)[200], Number(SETTINGS.anonSessionsPerHour.default) / 4, JSON.stringify(tally(single)));
      assert.equal(tally(single)[429], 300 - Number(SETTINGS.anonSessionsPerHour.default) / 4);

      // What storage cannot hold, and free-form fields over their bounds, through the API.
      const post = (body: string) => checkedFetch(`${server.url}/api/v1/comments?isLive=true`, { method: 'POST', headers: api, body }).then((r) => r.status);
      const comment = (extra: string) => `{"commenterName":"A","comment":"x","url":"https://example.com/h","urlId":"/hostile","locale":"en"${extra}}`;
      const many = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, 1]));
      for (const extra of [',"urlId":"/x\\ud800"', ',"localDateHours":1e309', `,"meta":${JSON.stringify(many)}`, `,"meta":{"a":"${'x'.repeat(20_000)}"}`, ',"commenterLink":"javascript:alert(1)"', ',"commenterName":"a\\u0000"']) {
        assert.equal(await post(comment(extra)), 400, extra.slice(0, 40));
      }
      const bigMeta = `,"meta":{"a":"${'x'.repeat(16_000)}"}`;
      assert.deepEqual(tally(await flood(100, 8, () => post(comment(bigMeta)))), { 200: 100 });
      for (const query of ['limit=Infinity', 'limit=1e309', 'fromDate=1e309', 'limit=0x10']) {
        assert.equal((await checkedFetch(`${server.url}/api/v1/comments?urlId=/hostile&${query}`, { headers: api })).status, 400, query);
      }
      await bystander();

      // A websocket client flooding frames is closed; others are served meanwhile.
      const ids = (await (await checkedFetch(withQuery(`${server.url}/api/v1/comments`, { urlId: '/flood' }), { headers: api })).json()) as { urlIdWS: string; tenantIdWS: string };
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/sub?${new URLSearchParams({ urlId: ids.urlIdWS, tenantIdWS: ids.tenantIdWS })}`, { headers: newClient() });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      for (let i = 0; i < 5000; i++) socket.send('ping');
      await bystander();
      assert.equal(await closed, 1008);

      // HTTP the wrapper sees is answered; what uWebSockets.js cannot parse gets no answer but harms nothing.
      assert.equal((await rawRequest(server.port, `GET /healthz?${'a'.repeat(9000)} HTTP/1.1\r\nHost: a\r\n\r\n`)).status, 414);
      assert.equal((await rawRequest(server.port, `GET /healthz HTTP/1.1\r\nHost: a\r\nx-a: ${'a'.repeat(17_000)}\r\n\r\n`)).status, 431);
      assert.equal((await rawRequest(server.port, 'POST /api/v1/me HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}')).status, 400);
      const manyHeaders = Array.from({ length: 60 }, (_, i) => `x-h${i}: 1\r\n`).join('');
      await rawRequest(server.port, `GET /healthz HTTP/1.1\r\nHost: a\r\n${manyHeaders}\r\n`, 500);
      const nullOrigin = await checkedFetch(withQuery(likes, { urlId: '/flood' }), { headers: { origin: 'null', ...newClient() } });
      assert.equal(nullOrigin.headers.get('access-control-allow-origin'), null);
      await bystander();

      // The attacked page's log reads, bounded, now and after a restart (four reads each).
      const readLog = async () => {
        const r = await checkedFetch(withQuery(`${server.url}/event-log/${tenantId}`, { urlId: '/flood', startTime: '0' }), { headers: newClient() });
        const text = await r.text();
        assert.equal(r.status, 200, text.slice(0, 200));
        assert.ok(text.length <= 1.1 * 1024 * 1024, `a read answers at most about 1 MiB (${text.length})`);
        return JSON.parse(text) as { events: unknown[] };
      };
      for (let i = 0; i < 4; i++) assert.ok((await readLog()).events.length > 0);
      assert.equal(server.child.exitCode, null, 'still running');
      const growth = rssMiB(server.child.pid!) - rssBefore;
      assert.ok(growth < RSS_GROWTH_MAX_MIB, `RSS grew ${growth.toFixed(0)} MiB`);

      assert.equal(await server.kill('SIGTERM'), 0);
      server = await spawnServer(env);
      for (let i = 0; i < 4; i++) assert.ok((await readLog()).events.length > 0);
      await bystander();
    });
  });
}
