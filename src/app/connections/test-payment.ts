import { findConnection, updateConnection } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { submitAs } from '../journal/submit.ts';
import { sepaTransfer } from '../sandbox/first-payment.ts';

/**
 * POST /connections/{id}/test-payment: the bank's test payment in the test environment, through the
 * same submit, delivery, answer and reconciliation path as any payment (one SEPA credit transfer of
 * 1.00 EUR, a fresh message id each time). The connection remembers it; its readiness shows how far
 * it got (signed and delivered, answered, reconciled).
 */
export async function sendTestPayment(
  ctx: AppContext,
  principal: Principal,
  input: { connectionId: string; platformId: string; companyId: string },
) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const scope = { platformId: input.platformId, companyId: input.companyId };
  const connection = await findConnection(ctx.db, scope, input.connectionId);
  if (!connection) throw notFound('connection');
  const profile = getProfile(connection.bankKey);
  if (connection.environment !== 'test') {
    throw new AppError('test_environment_only', 'test payments go through test-environment connections only', {
      environment: connection.environment,
    });
  }
  if (profile?.deliveryMode !== 'host-to-host') {
    throw new AppError('not_host_to_host', `${connection.bankKey} takes files by upload only; nothing to send`);
  }
  const now = ctx.clock.now();
  const date = now.toISOString().slice(0, 10);
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  const messageId = `TEST-${stamp}-${connection.id.slice(-6).toUpperCase()}`;
  const outcome = await submitAs(
    ctx,
    { kind: 'service', platformId: scope.platformId, userId: session.user.id },
    {
      companyId: scope.companyId,
      bankKey: connection.bankKey,
      environment: 'test',
      validate: false,
      idempotencyKey: messageId,
      payment: sepaTransfer({
        messageId,
        date,
        payerName: 'Test payment',
        debtorBic: profile.bic,
        amount: '1.00',
        endToEndId: `${messageId}-1`,
        paymentId: `${messageId}-P1`,
        remittance: `Connection test ${connection.id}`,
      }),
    },
  );
  const document = outcome.body;
  await ctx.db.transaction(async (tx) => {
    await updateConnection(tx, scope, connection.id, { testPaymentDocumentId: document.id });
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'connection.test_payment_sent',
      message: `test payment ${document.journalNo} submitted through ${connection.id}`,
      actorUserId: session.user.id,
      metadata: { connectionId: connection.id, documentId: document.id, journalNo: document.journalNo, messageId },
      bankKey: connection.bankKey,
      environment: connection.environment,
      connectionId: connection.id,
    });
  });
  return { documentId: document.id, journalNo: document.journalNo };
}
