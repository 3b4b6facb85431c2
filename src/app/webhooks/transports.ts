import type { Mailer } from '../../platform/mailer.ts';
import { createOutboundHttp, type OutboundHttp } from '../../platform/outbound-http.ts';
import { smtpMailer } from '../../platform/smtp.ts';
import type { SsrfPolicy } from '../../platform/ssrf-guard.ts';
import type { AppContext } from '../context.ts';

/** What the sender talks through: guarded HTTPS, SMTP (or the local mail drop) and jitter. */
export type WebhookTransports = {
  http: OutboundHttp;
  mail: Mailer;
  random: () => number;
  close(): Promise<void>;
};

export function createWebhookTransports(
  ctx: AppContext,
  options: { policy?: SsrfPolicy; random?: () => number; mail?: Mailer } = {},
): WebhookTransports {
  const http = createOutboundHttp({
    policy: options.policy ?? { allowPrivate: ctx.config.webhookAllowPrivateTargets },
    extraCaCertsFile: ctx.config.extraCaCerts,
  });
  const smtp = ctx.config.smtpUrl && !options.mail ? smtpMailer(ctx.config.smtpUrl, ctx.config.smtpFrom) : undefined;
  return {
    http,
    mail: options.mail ?? smtp ?? ctx.mailer,
    random: options.random ?? Math.random,
    async close() {
      smtp?.close();
      await http.close();
    },
  };
}
