import type { ConnectionRow } from '../../db/repositories/connections.ts';
import { findDocument, listPaymentLines } from '../../db/repositories/journal-documents.ts';
import { webServicesProfile } from '../../domain/banks/connectivity.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { certificateInfo } from '../../platform/x509.ts';
import type { AppContext } from '../context.ts';
import { ebicsReadiness } from './ebics-view.ts';
import { channelSettingsView } from './settings-view.ts';

/**
 * A connection with its readiness: whether payments can be delivered through it now, what is missing
 * otherwise, and what the user needs to finish (the activation route and fields of a web-services
 * bank; in a sandbox, what the simulated bank issued). Converted-only banks need no channel.
 */
export async function connectionView(ctx: AppContext, row: ConnectionRow) {
  const profile = getProfile(row.bankKey);
  const hostToHost = profile?.deliveryMode === 'host-to-host';
  const ws = profile?.channel === 'FI_WS' ? webServicesProfile(row.bankKey) : undefined;
  const missing: string[] = [];
  if (hostToHost && row.status !== 'active') missing.push('activation');
  if (ws && row.status === 'active' && !row.clientCertPem) missing.push('certificate');
  if (ws && row.status === 'active' && !row.signingCertSealed) missing.push('bank_certificate');
  // A permanent channel error met by a delivery or a pickup: not ready until the channel works again.
  if (row.channelError) missing.push('channel');

  const readiness: Record<string, unknown> = { ready: missing.length === 0, missing };
  readiness['channelError'] = row.channelError ?? null;
  if (profile?.channel === 'FI_WS') {
    readiness['activation'] = ws
      ? {
          route: `POST /connections/${row.id}/${ws.activationRoute}`,
          family: ws.family,
          fields: Object.entries(ws.fieldRules).map(([name, rule]) => ({ name, ...rule })),
        }
      : { route: null, note: `activation of ${row.bankKey} web services is not supported yet` };
    readiness['certificate'] = row.clientCertPem
      ? {
          subject: row.clientCertSubject,
          expiry: row.clientCertExpiry?.toISOString() ?? null,
          serialNumber: certificateInfo(row.clientCertPem).serialNumber,
          renewsFrom:
            ws && row.clientCertExpiry
              ? new Date(row.clientCertExpiry.getTime() - ws.renewBeforeDays * 86_400_000).toISOString()
              : null,
        }
      : null;
    readiness['bankCertificate'] = row.signingCertSubject
      ? { subject: row.signingCertSubject, expiry: row.signingCertExpiry?.toISOString() ?? null }
      : null;
  }
  if (profile?.channel === 'EBICS') Object.assign(readiness, ebicsReadiness(ctx, row));
  if (row.sandboxActivationSealed && row.status !== 'active') {
    const issued = JSON.parse(ctx.encryptor.decrypt(row.sandboxActivationSealed)) as Record<string, unknown>;
    // What the simulated bank would have published by letter, once HPB has run.
    const published =
      profile?.channel === 'EBICS' && row.ebicsPendingBankKeysSealed
        ? ctx.sandboxBanks?.publishedBankKeys?.(row.bankKey)
        : undefined;
    readiness['sandboxActivation'] = published ? { ...issued, bankKeyHashes: published } : issued;
  }
  readiness['lastTestPayment'] = row.testPaymentDocumentId ? await testPaymentOutcome(ctx, row) : null;

  return {
    id: row.id,
    platformId: row.platformId,
    companyId: row.companyId,
    bankKey: row.bankKey,
    bankName: profile?.bankName ?? row.bankKey,
    channel: profile?.channel ?? null,
    environment: row.environment,
    status: row.status,
    deliveryMode: profile?.deliveryMode ?? 'converted-only',
    createdAt: row.createdAt.toISOString(),
    activatedAt: row.activatedAt?.toISOString() ?? null,
    signingCertSubject: row.signingCertSubject,
    signingCertExpiry: row.signingCertExpiry?.toISOString() ?? null,
    settings: channelSettingsView(ctx, row),
    readiness,
  };
}

/** The last test payment: where it is, how it was delivered and what the bank answered, line by line. */
async function testPaymentOutcome(ctx: AppContext, row: ConnectionRow) {
  const scope = { platformId: row.platformId, companyId: row.companyId };
  const doc = await findDocument(ctx.db, scope, row.testPaymentDocumentId ?? '');
  if (!doc) return null;
  const lines = await listPaymentLines(ctx.db, scope, doc.id);
  const count = (state: string) => lines.filter((l) => l.state === state).length;
  const delivery = (doc.details as { delivery?: Record<string, unknown> } | null)?.delivery ?? null;
  const outcome =
    doc.status === 'executed'
      ? 'executed'
      : doc.status === 'rejected'
        ? 'rejected'
        : doc.deliveryStatus === 'failed'
          ? 'delivery_failed'
          : doc.status === 'sent'
            ? 'awaiting_bank_answer'
            : 'in_progress';
  return {
    documentId: doc.id,
    journalNo: doc.journalNo,
    outcome,
    status: doc.status,
    deliveryStatus: doc.deliveryStatus,
    delivery,
    lines: { cleared: count('cleared'), rejected: count('rejected'), pending: count('pending') },
    submittedAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}
