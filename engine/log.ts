/** Structured logging: one JSON object per line on stderr, so stdout stays for program output. */

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

let threshold: number = LEVELS.info;

function write(level: LogLevel, event: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  const line: Record<string, unknown> = { t: new Date().toISOString(), level, event, ...fields };
  if (fields?.['err'] instanceof Error) {
    const err = fields['err'];
    line['err'] = { name: err.name, message: err.message, stack: err.stack };
  }
  process.stderr.write(JSON.stringify(line) + '\n');
}

export const log = {
  setLevel(level: string): void {
    if (!Object.hasOwn(LEVELS, level)) throw new Error(`unknown log level ${level}`);
    threshold = LEVELS[level as LogLevel];
  },
  debug: (event: string, fields?: Record<string, unknown>) => write('debug', event, fields),
  info: (event: string, fields?: Record<string, unknown>) => write('info', event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => write('warn', event, fields),
  error: (event: string, fields?: Record<string, unknown>) => write('error', event, fields),
};
