/**
 * One websocket subscriber of the fan-out benchmarks, as lean as it gets: raw TCP sockets that
 * speak just enough of RFC 6455 to upgrade and split frames, read through `onread` into one
 * shared buffer, so hundreds of thousands of frames a second cost little CPU. Each records
 * when every frame arrived; a reference subscriber also parses its frames.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** How a presence frame starts: subscribers connecting make them, in numbers that depend on when each connected. */
const PRESENCE_PREFIX = Buffer.from('{"type":"p-u"', 'latin1');

/** Shared by every socket's `onread`: each chunk is consumed before the next read. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

/** What a reference subscriber learned from one frame. */
export interface ParsedFrame {
  readonly type: string;
  readonly voteId: string | undefined;
  /** Votes the frame adds: 1 for a new vote, the sum of `changes` for a `cvc` frame (every vote here is a new up vote). */
  readonly votes: number;
  /** Net change of `votes` per comment the frame brings (a vote event, or a `cvc` frame's `changes`). */
  readonly changes: Readonly<Record<string, number>>;
}

/**
 * One websocket subscriber, as lean as it gets: handshake, then a frame splitter that records
 * the arrival time of each text frame and, for reference subscribers, its parsed content.
 */
export class Subscriber {
  readonly reference: boolean;
  /** Arrival time (ms, `performance.now()`) of each text frame, in order. */
  arrivals = new Float64Array(4096);
  frames = 0;
  payloadBytes = 0;
  readonly parsed: ParsedFrame[] = [];
  closed = false;

  #socket: Socket | undefined;
  #handshake: Buffer | undefined = Buffer.alloc(0);
  readonly #header = Buffer.alloc(14);
  #headerLength = 0;
  #headerNeeded = 2;
  #payloadLeft = 0;
  #opcode = 0;
  #payload: Buffer[] = [];
  /** The current text frame's first bytes, until they tell a presence frame (`p-u`) from the rest. */
  #start: Buffer | undefined;
  #startAt = 0;
  /** The current frame is a presence frame: readers joining, which subscribers connecting make; not counted. */
  #presence = false;
  /** Payload bytes of the current frame seen before it was classified. */
  #pendingBytes = 0;

  constructor(reference: boolean) {
    this.reference = reference;
  }

  open(port: number, path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const key = randomBytes(16).toString('base64');
      const accept = createHash('sha1').update(key + WS_GUID).digest('base64');
      const socket = connect({
        port,
        host: '127.0.0.1',
        onread: {
          buffer: READ_BUFFER,
          callback: (n: number, buffer: Uint8Array): boolean => {
            const now = performance.now();
            let at = 0;
            if (this.#handshake !== undefined) {
              this.#handshake = Buffer.concat([this.#handshake, buffer.subarray(0, n)]);
              const end = this.#handshake.indexOf('\r\n\r\n');
              if (end < 0) return true;
              const head = this.#handshake.subarray(0, end).toString('latin1');
              if (!head.startsWith('HTTP/1.1 101') || !head.toLowerCase().includes(`sec-websocket-accept: ${accept.toLowerCase()}`)) {
                reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
                socket.destroy();
                return false;
              }
              at = n - (this.#handshake.length - end - 4);
              this.#handshake = undefined;
              resolve();
            }
            this.#consume(buffer, at, n, now);
            return true;
          },
        },
      });
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('close', () => {
        this.closed = true;
      });
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      this.#socket = socket;
    });
  }

  close(): void {
    this.#socket?.destroy();
  }

  #consume(buffer: Uint8Array, from: number, to: number, now: number): void {
    let at = from;
    while (at < to) {
      if (this.#payloadLeft === 0 && this.#headerNeeded > 0) {
        while (this.#headerNeeded > 0 && at < to) {
          this.#header[this.#headerLength++] = buffer[at++]!;
          this.#headerNeeded--;
          if (this.#headerLength === 2) {
            const short = this.#header[1]! & 0x7f;
            this.#headerNeeded = short === 126 ? 2 : short === 127 ? 8 : 0;
          }
        }
        if (this.#headerNeeded > 0) return;
        const short = this.#header[1]! & 0x7f;
        this.#payloadLeft = short === 126 ? this.#header.readUInt16BE(2) : short === 127 ? Number(this.#header.readBigUInt64BE(2)) : short;
        this.#opcode = this.#header[0]! & 0x0f;
        this.#presence = false;
        if (this.#opcode === 1) {
          this.#start = Buffer.alloc(0);
          this.#startAt = now;
        }
        if (this.#payloadLeft === 0) this.#frameDone();
        continue;
      }
      const take = Math.min(this.#payloadLeft, to - at);
      if (this.#opcode === 1) {
        if (this.reference) this.#payload.push(Buffer.from(buffer.subarray(at, at + take)));
        if (this.#start !== undefined) {
          this.#start = Buffer.concat([this.#start, buffer.subarray(at, at + Math.min(take, PRESENCE_PREFIX.length))]);
          this.#pendingBytes += take;
          if (this.#start.length >= PRESENCE_PREFIX.length || take === this.#payloadLeft) this.#classify();
        } else if (!this.#presence) this.payloadBytes += take;
      }
      at += take;
      this.#payloadLeft -= take;
      if (this.#payloadLeft === 0) this.#frameDone();
    }
  }

  #arrived(now: number): void {
    if (this.frames === this.arrivals.length) {
      const grown = new Float64Array(this.arrivals.length * 2);
      grown.set(this.arrivals);
      this.arrivals = grown;
    }
    this.arrivals[this.frames++] = now;
  }

  /** Tells a presence frame from the rest by its first bytes; the rest count as arrived when their header did. */
  #classify(): void {
    this.#presence = this.#start!.subarray(0, PRESENCE_PREFIX.length).equals(PRESENCE_PREFIX);
    this.#start = undefined;
    if (!this.#presence) {
      this.#arrived(this.#startAt);
      this.payloadBytes += this.#pendingBytes;
    }
    this.#pendingBytes = 0;
  }

  #frameDone(): void {
    if (this.#opcode === 1 && this.#start !== undefined) this.#classify();
    if (this.#presence) {
      this.#payload = [];
      this.#presence = false;
    } else if (this.#opcode === 1 && this.reference) {
      const event = JSON.parse(decodeURIComponent(Buffer.concat(this.#payload).toString('utf8'))) as { type: string; vote?: { _id?: string; commentId?: string; direction?: number }; changes?: Record<string, number> };
      const votes = event.type === 'new-vote' ? 1 : event.type === 'cvc' ? Object.values(event.changes ?? {}).reduce((a, b) => a + b, 0) : 0;
      let changes: Record<string, number> = {};
      if (event.type === 'cvc') changes = event.changes ?? {};
      else if ((event.type === 'new-vote' || event.type === 'deleted-vote') && event.vote?.commentId !== undefined) {
        const sign = Math.sign(event.vote.direction ?? 0);
        changes = { [event.vote.commentId]: event.type === 'new-vote' ? sign : -sign };
      }
      this.parsed.push({ type: event.type, voteId: event.vote?._id, votes, changes });
      this.#payload = [];
    }
    if (this.#opcode === 8) this.closed = true;
    this.#headerLength = 0;
    this.#headerNeeded = 2;
  }
}
