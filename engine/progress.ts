/**
 * Progress of a long command on stderr: a bar redrawn in place on a terminal, plain lines
 * (at most one every few seconds) otherwise, so logs and CI output stay readable.
 */

const LINE_EVERY_MS = 2000;
const BAR_WIDTH = 30;

/** Reports `done` of `total` bytes and a count of items. */
export class Progress {
  readonly #tty: boolean;
  readonly #total: number;
  readonly #label: string;
  readonly #started = Date.now();
  #lastLine = 0;
  #phase = '';
  #phaseStarted = Date.now();

  constructor(total: number, label: string, stream: NodeJS.WriteStream = process.stderr) {
    this.#tty = stream.isTTY === true;
    this.#total = total;
    this.#label = label;
  }

  /**
   * `done` of the whole (bytes of the file by default, or of `of` when given), `items` so far,
   * in the named phase.
   */
  update(done: number, items: number, phase = '', of = this.#total): void {
    const share = of > 0 ? Math.min(1, done / of) : 0;
    if (phase !== this.#phase) {
      // A new phase always shows its first line.
      if (this.#tty && this.#phase !== '') process.stderr.write('\n');
      this.#phase = phase;
      this.#phaseStarted = Date.now();
      this.#lastLine = 0;
    }
    const seconds = Math.max(0.001, (Date.now() - this.#phaseStarted) / 1000);
    const rate = Math.round(items / seconds);
    const pct = `${Math.floor(share * 100)}%`.padStart(4);
    if (this.#tty) {
      const filled = Math.round(share * BAR_WIDTH);
      process.stderr.write(`\r${phase} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${pct} ${items.toLocaleString('en')} ${this.#label} (${rate.toLocaleString('en')}/s)  `);
      return;
    }
    const now = Date.now();
    if (now - this.#lastLine < LINE_EVERY_MS) return;
    this.#lastLine = now;
    const heapMb = Math.round(process.memoryUsage().heapUsed / 1048576);
    process.stderr.write(`progress ${phase} ${pct.trim()} ${items} ${this.#label} ${rate}/s heap ${heapMb} MB\n`);
  }

  done(items: number): void {
    if (this.#tty) process.stderr.write('\n');
    process.stderr.write(`done: ${items} ${this.#label} in ${((Date.now() - this.#started) / 1000).toFixed(1)} s\n`);
  }
}
