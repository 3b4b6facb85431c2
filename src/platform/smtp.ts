import nodemailer from 'nodemailer';
import type { Mail, Mailer } from './mailer.ts';

/**
 * SMTP through nodemailer (SMTP_URL, SMTP_FROM): the webhook email transport. The connection is
 * pooled; each send resolves when the server accepted the message (250 after DATA).
 */
export function smtpMailer(url: string, from: string): Mailer & { close(): void } {
  const transport = nodemailer.createTransport(url, { from });
  return {
    async send(mail: Mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
