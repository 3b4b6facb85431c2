/**
 * Test helpers for the inbound half of the journal: corpus files read in place, outbound documents
 * seeded through the repositories (the submission route is built in parallel), pain.002 reports.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../src/app/context.ts';
import { insertDocument, insertPaymentLines, nextJournalNo } from '../../src/db/repositories/journal-documents.ts';
import { answerDeadline, type DeliveryMode, type OutboundStatus } from '../../src/domain/lifecycle/index.ts';

export const CORPUS = process.env.CORPUS_DIR ?? path.resolve(import.meta.dirname, '../../../shared/corpus');

export function corpusFile(relative: string): string {
  return readFileSync(path.join(CORPUS, relative), 'utf8');
}

export type SeedLine = { endToEndId: string; amount: string; currency?: string; paymentId?: string };

/** An outbound pain.001 document with its payment lines, as the submission use case journals it. */
export async function seedOutbound(
  ctx: AppContext,
  scope: { platformId: string; companyId: string },
  input: {
    messageId: string;
    lines: SeedLine[];
    status?: OutboundStatus;
    bankKey?: string;
    environment?: string;
    /** host-to-host seeds are delivered (sent); converted-only ones (the default) take evidence while converted. */
    deliveryMode?: DeliveryMode;
  },
) {
  return ctx.db.transaction(async (tx) => {
    const now = new Date();
    const journalNo = await nextJournalNo(tx, scope.companyId, 'outbound');
    const id = ctx.ids.next('doc');
    const doc = await insertDocument(tx, {
      id,
      ...scope,
      journalNo,
      direction: 'outbound',
      type: 'pain.001',
      sourceFormat: 'pain.001.001.03',
      bankKey: input.bankKey ?? 'demo',
      environment: input.environment ?? 'test',
      status: input.status ?? 'converted',
      messageId: input.messageId,
      importSource: 'api',
      transactionCount: input.lines.length,
      totals: [],
      deliveryMode: input.deliveryMode ?? 'converted-only',
      deliveryStatus: input.deliveryMode === 'host-to-host' ? 'delivered' : 'not-applicable',
      summary: `seeded ${input.messageId}`,
      createdAt: now,
      updatedAt: now,
    });
    await insertPaymentLines(
      tx,
      input.lines.map((l, i) => ({
        documentId: id,
        lineIndex: i,
        ...scope,
        paymentId: l.paymentId ?? 'PMT-1',
        endToEndId: l.endToEndId,
        amountMinor: BigInt(l.amount.replace('.', '')),
        amount: l.amount,
        currency: l.currency ?? 'EUR',
        payeeName: 'Payee',
        updatedAt: now,
        openUntil: answerDeadline(now),
      })),
    );
    return doc;
  });
}

export type TxStatus = { endToEndId: string; status: string; reason?: string; addtlInf?: string; amount?: string };

/** A pain.002.001.03 status report: group status, optional payment group status, transaction statuses. */
export function pain002(input: {
  messageId: string;
  originalMessageId: string;
  groupStatus?: string;
  groupReason?: string;
  paymentInfoId?: string;
  paymentStatus?: string;
  transactions?: TxStatus[];
}): string {
  const reason = (code: string | undefined, addtl?: string) =>
    code ? `<StsRsnInf><Rsn><Cd>${code}</Cd></Rsn>${addtl ? `<AddtlInf>${addtl}</AddtlInf>` : ''}</StsRsnInf>` : '';
  const txs = (input.transactions ?? [])
    .map(
      (t) =>
        `<TxInfAndSts><OrgnlEndToEndId>${t.endToEndId}</OrgnlEndToEndId><TxSts>${t.status}</TxSts>${reason(t.reason, t.addtlInf)}${
          t.amount ? `<OrgnlTxRef><Amt><InstdAmt Ccy="EUR">${t.amount}</InstdAmt></Amt></OrgnlTxRef>` : ''
        }</TxInfAndSts>`,
    )
    .join('');
  const group =
    input.paymentInfoId || txs
      ? `<OrgnlPmtInfAndSts><OrgnlPmtInfId>${input.paymentInfoId ?? 'PMT-1'}</OrgnlPmtInfId>${
          input.paymentStatus ? `<PmtInfSts>${input.paymentStatus}</PmtInfSts>` : ''
        }${txs}</OrgnlPmtInfAndSts>`
      : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt>
<GrpHdr><MsgId>${input.messageId}</MsgId><CreDtTm>2026-11-20T10:00:00</CreDtTm></GrpHdr>
<OrgnlGrpInfAndSts><OrgnlMsgId>${input.originalMessageId}</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.03</OrgnlMsgNmId>${
    input.groupStatus ? `<GrpSts>${input.groupStatus}</GrpSts>` : ''
  }${reason(input.groupReason)}</OrgnlGrpInfAndSts>
${group}
</CstmrPmtStsRpt></Document>`;
}
