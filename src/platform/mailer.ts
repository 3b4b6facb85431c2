import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';

/** Outbound mail (invites, the webhook e-mail transport). */
export type Mail = { to: string; subject: string; text: string };
export type Mailer = { send(mail: Mail): Promise<void> };

/**
 * The RFC 5322 message of a mail, built by nodemailer's composer: it encodes every header (RFC 2047
 * words for non-ASCII, line breaks inside a value folded away), so a subject or recipient holding
 * CR or LF can never start a header of its own. Never concatenate header lines by hand.
 */
export async function composeMail(mail: Mail, from: string): Promise<Buffer> {
  return new MailComposer({ from, to: mail.to, subject: mail.subject, text: mail.text }).compile().build();
}

/** Writes each mail as an .eml file under DATA_DIR/outbox: a local mail drop for a laptop install. */
export function fileDropMailer(dir: string, from = 'payops@localhost'): Mailer {
  return {
    async send(mail) {
      const message = await composeMail(mail, from);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const name = `${Date.now()}-${mail.to.replace(/[^a-z0-9@.]/gi, '_').slice(0, 100)}.eml`;
      writeFileSync(path.join(dir, name), message, { mode: 0o600 });
    },
  };
}
