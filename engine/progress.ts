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

  constructor(total: number, label: string, stream: NodeJS.WriteStream = process.stderr) {
    this.#tty = stream.isTTY === true;
    this.#total = total;
    this.#label = label;
  }

  update(bytes: number, items: number): void {
    const share = this.#total > 0 ? Math.min(1, bytes / this.#total) : 0;
    const seconds = Math.max(0.001, (Date.now() - this.#started) / 1000);
    const rate = Math.round(items / seconds);
    const pct = `${Math.floor(share * 100)}%`.padStart(4);
    if (this.#tty) {
      const filled = Math.round(share * BAR_WIDTH);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${pct} ${items.toLocaleString('en')} ${this.#label} (${rate.toLocaleString('en')}/s)  `);
      return;
    }
    const now = Date.now();
    if (now - this.#lastLine < LINE_EVERY_MS) return;
    this.#lastLine = now;
    process.stderr.write(`progress ${pct.trim()} ${items} ${this.#label} ${rate}/s\n`);
  }

  done(items: number): void {
    if (this.#tty) process.stderr.write('\n');
    process.stderr.write(`done: ${items} ${this.#label} in ${((Date.now() - this.#started) / 1000).toFixed(1)} s\n`);
  }
}
