import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Outbound mail (invites). SMTP arrives with the webhook issue; until then mail is dropped as files. */
export type Mail = { to: string; subject: string; text: string };
export type Mailer = { send(mail: Mail): Promise<void> };

/** Writes each mail as an .eml file under DATA_DIR/outbox: a local mail drop for a laptop install. */
export function fileDropMailer(dir: string): Mailer {
  return {
    async send(mail) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const name = `${Date.now()}-${mail.to.replace(/[^a-z0-9@.]/gi, '_')}.eml`;
      const body = `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`;
      writeFileSync(path.join(dir, name), body, { mode: 0o600 });
    },
  };
}
