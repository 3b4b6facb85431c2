import { type ConnectionRow, listCertificatesExpiringBy, updateConnection } from '../../db/repositories/connections.ts';
import { webServicesProfile } from '../../domain/banks/connectivity.ts';
import { certificateSubjectFields, newKeyAndCsr } from '../../platform/x509.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { channelFailureOf, reportSignatureRefusal } from './bank-refusal.ts';
import { channelTargetOf } from './channel-target.ts';
import { enrolledCertificate } from './enrolled-certificate.ts';
import { activeFrom } from './status.ts';

const DAY_MS = 86_400_000;
/** The widest renewal window of any web-services family: connections inside it are looked at. */
const WIDEST_WINDOW_DAYS = 90;

/**
 * The certificate renewal job (daily): every active web-services connection whose certificate is
 * inside its family's renewal window (the last 60 days: Samlink renews only then, with a new key)
 * gets `connection.certificate_expiring`, then a new key pair and request, sent to the bank's
 * certificate service signed with the still-valid certificate; the new certificate replaces the old
 * one (`connection.certificate_renewed`). A failure is recorded and tried again the next day.
 */
export async function renewExpiringCertificates(ctx: AppContext): Promise<{ renewed: number; failed: number }> {
  const now = ctx.clock.now();
  let renewed = 0;
  let failed = 0;
  for (const connection of await listCertificatesExpiringBy(
    ctx.db,
    new Date(now.getTime() + WIDEST_WINDOW_DAYS * DAY_MS),
  )) {
    const ws = webServicesProfile(connection.bankKey);
    const expiry = connection.clientCertExpiry;
    if (!ws || !expiry || expiry.getTime() - now.getTime() > ws.renewBeforeDays * DAY_MS) continue;
    if (await renewOne(ctx, connection, expiry)) renewed++;
    else failed++;
  }
  return { renewed, failed };
}

async function renewOne(ctx: AppContext, connection: ConnectionRow, expiry: Date): Promise<boolean> {
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  const about = {
    platformId: connection.platformId,
    companyId: connection.companyId,
    bankKey: connection.bankKey,
    environment: connection.environment,
    connectionId: connection.id,
  };
  const daysLeft = Math.floor((expiry.getTime() - ctx.clock.now().getTime()) / DAY_MS);
  await ctx.db.transaction((tx) =>
    recordEvent(ctx, tx, {
      ...about,
      type: 'connection.certificate_expiring',
      message: `certificate of ${connection.id} expires ${expiry.toISOString()} (${daysLeft} days); renewing`,
      metadata: {
        connectionId: connection.id,
        expiry: expiry.toISOString(),
        daysLeft,
        subject: connection.clientCertSubject,
      },
    }),
  );
  const target = channelTargetOf(ctx, connection);
  const keys = await newKeyAndCsr(certificateSubjectFields(connection.clientCertPem ?? ''));
  const session = ctx.channels.webServices(target);
  let enrolment: Awaited<ReturnType<typeof session.client.getCertificate>>;
  try {
    enrolment = await session.client.getCertificate({
      csrDer: keys.csrDer,
      publicKeyPem: keys.publicKeyPem,
      renewal: true,
    });
  } catch (error) {
    const failure = channelFailureOf(error);
    if (failure.code === 'signature_invalid')
      await reportSignatureRefusal(ctx, connection, 'getCertificate (renewal)', failure);
    ctx.logger.warn({ connectionId: connection.id, reason: failure.message }, 'certificate renewal failed');
    await ctx.db.transaction((tx) =>
      recordEvent(ctx, tx, {
        ...about,
        type: 'connection.certificate_renewal_failed',
        message: `certificate renewal of ${connection.id} failed: ${failure.bank ? `${failure.bank.code} ${failure.bank.text}` : failure.message}`,
        metadata: {
          connectionId: connection.id,
          reason: failure.code,
          ...(failure.bank ? { bank: failure.bank } : {}),
        },
      }),
    );
    return false;
  } finally {
    await session.close();
  }
  // The answer verified against the pinned bank certificate, so the bank certificate it names is the bank's.
  const { client, patch } = enrolledCertificate(ctx, enrolment, keys.privateKeyPem);
  await ctx.db.transaction(async (tx) => {
    await updateConnection(tx, scope, connection.id, patch, activeFrom(connection.status));
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.certificate_renewed',
      message: `certificate of ${connection.id} renewed: ${client.serialNumber}, valid to ${client.notAfter.toISOString()}`,
      metadata: {
        connectionId: connection.id,
        previousExpiry: expiry.toISOString(),
        serialNumber: client.serialNumber,
        expiry: client.notAfter.toISOString(),
        fingerprint256: client.fingerprint256,
      },
    });
  });
  return true;
}
