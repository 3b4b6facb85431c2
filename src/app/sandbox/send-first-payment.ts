import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { submitAs } from '../journal/submit.ts';
import { sepaTransfer } from './first-payment.ts';

/** The demo bank every sandbox is provisioned with (provision.ts). */
const SANDBOX_BANK = 'demo';

/**
 * The dashboard's "send the first payment" button: the sandbox's first payment (the one
 * POST /sandbox/provision hands out as `firstPayment`) submitted for the signed-in admin, through the
 * same submit path as the API (approval policies, conversion, delivery to the demo bank, its answers
 * and reconciliation). Each press is a new payment with its own message id.
 */
export async function sendSandboxFirstPayment(ctx: AppContext, session: SessionPrincipal, companyId: string) {
  if (!ctx.config.sandbox) throw new AppError('not_found', 'this is not a sandbox deployment');
  requireCompanyAdmin(session, session.platformId, companyId);
  const now = ctx.clock.now();
  const date = now.toISOString().slice(0, 10);
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 17);
  const messageId = `SANDBOX-${stamp}`;
  const outcome = await submitAs(
    ctx,
    { kind: 'service', platformId: session.platformId, userId: session.user.id },
    {
      companyId,
      bankKey: SANDBOX_BANK,
      environment: 'test',
      validate: false,
      idempotencyKey: messageId,
      payment: sepaTransfer({
        messageId,
        date,
        payerName: 'Sandbox Company',
        debtorBic: 'NDEAFIHH',
        amount: '125.50',
        endToEndId: `${messageId}-1`,
        paymentId: `${messageId}-P1`,
        remittance: 'Invoice 1001',
      }),
    },
  );
  return { documentId: outcome.body.id, journalNo: outcome.body.journalNo, status: outcome.body.status };
}
