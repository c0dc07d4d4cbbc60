/**
 * Builds the raw MIME message of an email (headers, text and HTML parts, encodings), in a render
 * worker: it is the costly part of sending (about a millisecond of CPU per email), and the
 * server's main thread has better things to do.
 */
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { plainText } from './plain-text.js';
import type { OutgoingEmail } from './transport.js';

export default function compose(mail: OutgoingEmail): Promise<Uint8Array> {
  const node = new MailComposer({ ...mail, text: mail.text ?? plainText(mail.html), headers: { ...mail.headers } }).compile();
  // The Message-ID given is kept as it is; nodemailer would otherwise add its own.
  node.setHeader('Message-ID', mail.messageId);
  return new Promise((resolve, reject) => node.build((err, raw) => (err ? reject(err) : resolve(raw))));
}
