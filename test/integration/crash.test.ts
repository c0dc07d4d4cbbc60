import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { demoHeaders, spawnServer } from '../fixtures/server-process.js';
import { storages } from '../fixtures/server.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { checkedFetch, WireShapeError } from '../fixtures/openapi.js';

interface Outcome {
  /** Domains whose creation was acknowledged, with the name acknowledged last. */
  acked: Map<string, string>;
  /** Domains whose duplicate creation (with this name) was refused. */
  refused: Map<string, string>;
  unknown: number;
}

/**
 * Kills a server with SIGKILL in the middle of concurrent writes, restarts it on the same data,
 * and checks that every acknowledged write is there and no refused one is.
 */
for (const storage of storages()) {
  describe(`crash under write load on ${storage}`, () => {
    test('every acknowledged write survives SIGKILL; no refused write appears', () =>
      withServerStorage(storage, 'crash-test', async (env) => {
        const first = await spawnServer(env);
        const headers = demoHeaders(first);
        const outcome: Outcome = { acked: new Map(), refused: new Map(), unknown: 0 };

        let stop = false;
        async function worker(w: number): Promise<void> {
          for (let n = 0; !stop; n++) {
            const ackedDomains = [...outcome.acked.keys()];
            let domain: string;
            let name: string;
            let method = 'POST';
            let path = '/api/v1/domain-configs';
            if (n % 5 === 4 && ackedDomains.length > 0) {
              domain = ackedDomains[(w * 31 + n) % ackedDomains.length]!;
              name = `dup-${w}-${n}`;
            } else if (n % 7 === 6 && ackedDomains.length > 0) {
              domain = ackedDomains[(w * 17 + n) % ackedDomains.length]!;
              name = `patched-${w}-${n}`;
              method = 'PATCH';
              path = `/api/v1/domain-configs/${domain}`;
            } else {
              domain = `w${w}-n${n}.crash.example`;
              name = `created-${w}-${n}`;
            }
            try {
              const body = method === 'PATCH' ? { emailFromName: name } : { domain, emailFromName: name };
              const res = await checkedFetch(first.url + path, { method, headers, body: JSON.stringify(body) });
              const json = (await res.json()) as { code?: string };
              if (res.status === 200) outcome.acked.set(domain, name);
              else if (res.status === 409 && json.code === 'domain-config-exists') outcome.refused.set(domain, name);
              else outcome.unknown++;
            } catch (error) {
              if (error instanceof WireShapeError) throw error;
              // The connection died with the server: this write's outcome is unknown.
              outcome.unknown++;
              return;
            }
          }
        }

        const workers = Array.from({ length: 16 }, (_, w) => worker(w));
        const deadline = Date.now() + 15_000;
        while (outcome.acked.size < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.ok(outcome.acked.size >= 300, `only ${outcome.acked.size} writes acknowledged before the kill`);
        await first.kill('SIGKILL');
        stop = true;
        await Promise.all(workers);
        assert.ok(outcome.refused.size > 0, 'the load included refused duplicates');

        const second = await spawnServer(env);
        try {
          assert.equal(second.demo, undefined, 'no second demo tenant on a non-empty database');
          const res = await checkedFetch(`${second.url}/api/v1/domain-configs`, { headers });
          assert.equal(res.status, 200);
          const stored = new Map(
            ((await res.json()) as { configurations: { domain: string; emailFromName: string }[] }).configurations.map((c) => [c.domain, c.emailFromName]),
          );
          const lost = [...outcome.acked].filter(([domain, name]) => stored.get(domain) !== name && !stored.get(domain)?.startsWith('patched-'));
          assert.deepEqual(lost, [], 'acknowledged writes lost');
          for (const [domain, name] of outcome.acked) {
            if (name.startsWith('patched-')) assert.ok(stored.get(domain)?.startsWith('patched-'), `acknowledged patch of ${domain} lost`);
          }
          for (const [domain, name] of outcome.refused) assert.notEqual(stored.get(domain), name, `refused write to ${domain} is visible`);
        } finally {
          await second.kill('SIGTERM');
        }
      }));
  });
}
