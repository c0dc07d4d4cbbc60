/**
 * How emails leave the server: SMTP through nodemailer when `SMTP_URL` is set, otherwise each
 * email is written as an `.eml` file under `DATA_DIR/outbox-mail/` and logged, so a developer
 * sees exactly what would have been sent.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, type TransportOptions } from 'nodemailer';
import { log } from '../engine/log.js';

/** One message, ready to send. */
export interface OutgoingEmail {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly html: string;
  /** The text part; made from the HTML when absent. */
  readonly text?: string;
  /** With angle brackets: `<id@host>`. */
  readonly messageId: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A failed send: `permanent` for an SMTP 5xx answer; anything else may succeed later. */
export class SendError extends Error {
  override readonly name = 'SendError';
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Who a message goes to and comes from, apart from its raw text (the SMTP envelope). */
export interface Envelope {
  readonly from: string;
  readonly to: string;
  readonly messageId: string;
  readonly subject: string;
}

export interface MailTransport {
  /**
   * Sends a built message (see compose-worker.ts); resolves once the receiving server accepted
   * it, rejects with SendError.
   */
  send(envelope: Envelope, raw: Buffer): Promise<void>;
  close(): void;
}

/** The bare address of `"Name" <a@b>` (or of `a@b`). */
function addressOf(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}

/** Seconds a connection may take to open, greet and answer before the attempt counts as failed. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** nodemailer options from `smtp://user:pass@host:port` (or `smtps://` for TLS from the start). */
function smtpOptions(url: string): Record<string, unknown> {
  const u = new URL(url);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps://, got ${u.protocol}`);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname,
    port: u.port === '' ? (secure ? 465 : 587) : Number(u.port),
    secure,
    auth: u.username === '' ? undefined : { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) },
    pool: true,
    maxConnections: 4,
    ...SMTP_TIMEOUTS,
  };
}

/** The transport the configuration asks for. */
export function createMailTransport(smtpUrl: string | undefined, dataDir: string): MailTransport {
  return smtpUrl === undefined ? fileTransport(join(dataDir, 'outbox-mail')) : smtpTransport(smtpUrl);
}

function smtpTransport(url: string): MailTransport {
  const transporter = createTransport(smtpOptions(url) as TransportOptions);
  return {
    async send(envelope, raw) {
      try {
        await transporter.sendMail({ envelope: { from: addressOf(envelope.from), to: [envelope.to] }, raw });
      } catch (err) {
        const e = err as { responseCode?: number; response?: string; message?: string; code?: string };
        // Only an answer of the receiving server can be final; a lost connection is retried.
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
        throw new SendError(e.response ?? e.message ?? String(err), permanent);
      }
    },
    close() {
      transporter.close();
    },
  };
}

function fileTransport(dir: string): MailTransport {
  let made: Promise<unknown> | undefined;
  return {
    async send(envelope, raw) {
      try {
        await (made ??= mkdir(dir, { recursive: true }).catch((err: unknown) => {
          made = undefined;
          throw err;
        }));
        const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${envelope.messageId.replace(/[^\w.-]+/g, '_')}.eml`;
        const path = join(dir, name);
        // Written aside and renamed: whoever watches the folder never reads half an email.
        const partial = join(dir, `.${name}.partial`);
        await writeFile(partial, raw);
        await rename(partial, path);
        log.info('email-written', { path, to: envelope.to, subject: envelope.subject, messageId: envelope.messageId });
      } catch (err) {
        throw new SendError(`Could not write the email file: ${(err as Error).message}`, false);
      }
    },
    close() {},
  };
}
