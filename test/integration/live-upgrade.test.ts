/**
 * A websocket upgrade completed after awaits (the `/sub` admission checks) keeps its socket
 * open. uWebSockets.js 20.30 closed such a socket right after `open`, now and then, when the
 * upgrade ran inside `res.cork()` (its cork() misread the HTTP response's state from memory the
 * websocket had taken over: fixed upstream in uWebSockets PR #1929): readers were seen closed
 * with code 1006 before any event, under load. The server now upgrades outside cork, which is
 * safe only when uWebSockets has not marked the connection to be closed: a handshake without
 * the "Upgrade" token in its (first) Connection header is refused, as RFC 6455 asks; upgraded
 * outside cork, it would crash the process.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { pageTopic } from '../../actors/live/live-events.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { emit, voteEvent } from '../unit/live/fixtures.js';

/** A raw websocket client: the handshake as given, then unmasked server text frames. */
class RawSubscriber {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  #ended = false;
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake?.();
    });
    const end = () => {
      this.#ended = true;
      this.#wake?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  static async open(port: number, path: string, connection: readonly string[]): Promise<{ client: RawSubscriber; status: string }> {
    const socket = connect(port, '127.0.0.1');
    const client = new RawSubscriber(socket);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const key = randomBytes(16).toString('base64');
    const lines = connection.map((value) => `Connection: ${value}\r\n`).join('');
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n${lines}Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    const head = await client.#until(() => {
      const end = client.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const text = client.#buffer.subarray(0, end).toString('latin1');
      client.#buffer = client.#buffer.subarray(end + 4);
      return text;
    });
    return { client, status: head.split('\r\n')[0]! };
  }

  /** The next text frame's payload; rejects if the connection ends first. */
  nextText(): Promise<string> {
    return this.#until(() => {
      const b = this.#buffer;
      if (b.length < 2) return undefined;
      assert.equal(b[0], 0x81, `a final text frame, got opcode byte ${b[0]}`);
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return undefined;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return undefined;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) return undefined;
      const text = b.subarray(offset, offset + length).toString('utf8');
      this.#buffer = b.subarray(offset + length);
      return text;
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  async #until<T>(take: () => T | undefined): Promise<T> {
    for (;;) {
      const value = take();
      if (value !== undefined) return value;
      if (this.#ended) throw new Error('the server closed the connection');
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}

for (const storage of storages()) {
  describe(`websocket upgrades after awaits on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    const pathOf = (urlId: string) => {
      const ids = t.server.services.liveIds;
      return `/sub?urlId=${encodeURIComponent(ids.urlIdWS(t.tenant.tenantId, urlId))}&tenantIdWS=${encodeURIComponent(ids.tenantIdWS(t.tenant.tenantId))}`;
    };

    test('readers upgraded after the admission checks stay open and get their page\'s events', async () => {
      const tenantId = t.tenant.tenantId;
      // Each on a page of its own: the first reader of a page waits for the page's settings.
      for (const [i, connection] of [['Upgrade'], ['keep-alive, Upgrade'], ['upgrade'], ['Upgrade', 'close']].entries()) {
        const urlId = `/upgrade/${i}`;
        const { client, status } = await RawSubscriber.open(t.server.port, pathOf(urlId), connection);
        try {
          assert.equal(status, 'HTTP/1.1 101 Switching Protocols', `Connection: ${connection.join(' / ')}`);
          await emit(t, pageTopic(tenantId, urlId), [voteEvent(i + 1)]);
          const event = JSON.parse(await client.nextText()) as { type: string; seq: number };
          assert.deepEqual([event.type, event.seq], ['new-vote', i + 1], `Connection: ${connection.join(' / ')}`);
        } finally {
          client.close();
        }
      }
    });

    test('a handshake whose first Connection header lacks "Upgrade" is refused with 400, and the server goes on', async () => {
      for (const connection of [['close'], ['close', 'Upgrade'], ['keep-alive'], []]) {
        const { client, status } = await RawSubscriber.open(t.server.port, pathOf('/upgrade/refused'), connection);
        client.close();
        assert.equal(status, 'HTTP/1.1 400 Bad Request', `Connection: ${connection.join(' / ')}`);
      }
      assert.equal((await t.api('GET', '/healthz', { auth: 'none' })).status, 200);
      const { client, status } = await RawSubscriber.open(t.server.port, pathOf('/upgrade/after'), ['Upgrade']);
      client.close();
      assert.equal(status, 'HTTP/1.1 101 Switching Protocols');
    });
  });
}
