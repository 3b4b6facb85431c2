/**
 * Seeds journal documents through the repository functions (the way the submit and ingest use cases
 * write them), for the read-side tests: number, document, payment lines and an audit event in one
 * transaction.
 */
import { recordEvent } from '../../src/app/audit/record.ts';
import { retentionUntil } from '../../src/app/audit/retention-policy.ts';
import type { CompanyScope } from '../../src/db/executor.ts';
import {
  insertDocument,
  insertPaymentLines,
  type JournalDocumentRow,
  nextJournalNo,
} from '../../src/db/repositories/journal-documents.ts';
import type { LineState, OutboundStatus } from '../../src/domain/lifecycle/index.ts';
import type { TestApp } from '../harness.ts';

export type SeedLine = { amount: string; currency?: string; payee?: string; endToEndId?: string; state?: LineState };

export type SeedOutbound = {
  lines?: SeedLine[];
  status?: OutboundStatus;
  paymentType?: string | null;
  summary?: string;
  messageId?: string;
  bankKey?: string;
  environment?: 'test' | 'production';
  createdAt?: Date;
  xml?: string | null;
  evidence?: Record<string, unknown>;
};

function minor(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(`${whole}${fraction.padEnd(2, '0')}`);
}

function add(a: string, b: string): string {
  const sum = minor(a) + minor(b);
  const s = sum.toString().padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

let counter = 0;

export async function seedOutbound(t: TestApp, scope: CompanyScope, options: SeedOutbound = {}) {
  counter++;
  const now = options.createdAt ?? t.ctx.clock.now();
  const environment = options.environment ?? 'test';
  const lines = options.lines ?? [{ amount: '10.00' }];
  const totals = new Map<string, string>();
  for (const l of lines) {
    const c = l.currency ?? 'EUR';
    totals.set(c, totals.has(c) ? add(totals.get(c)!, l.amount) : l.amount);
  }
  const messageId = options.messageId ?? `MSG-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const payment = { messageId, initiatingParty: { name: 'Seed Oy' }, payments: [{ paymentId: 'P1' }] };
  const xml = options.xml === undefined ? `<Document><MsgId>${messageId}</MsgId></Document>` : options.xml;
  return t.ctx.db.transaction(async (tx): Promise<JournalDocumentRow> => {
    const journalNo = await nextJournalNo(tx, scope.companyId, 'outbound');
    const doc = await insertDocument(tx, {
      id: t.ctx.ids.next('doc'),
      platformId: scope.platformId,
      companyId: scope.companyId,
      journalNo,
      direction: 'outbound',
      type: 'pain.001',
      sourceFormat: 'pain.001.001.03',
      bankKey: options.bankKey ?? 'demo',
      environment,
      status: options.status ?? 'converted',
      messageId,
      importSource: 'api',
      transactionCount: lines.length,
      totals: [...totals].map(([currency, amount]) => ({ currency, amount })),
      paymentType: options.paymentType === undefined ? 'SEPA' : options.paymentType,
      idempotencyKey: messageId,
      deliveryMode: 'host-to-host',
      deliveryStatus: 'queued',
      summary: options.summary ?? `${lines.length} payment(s) ${messageId}`,
      payloadSealed: t.ctx.encryptor.encrypt(JSON.stringify(payment)),
      fileSealed: xml === null ? null : t.ctx.encryptor.encrypt(xml),
      createdAt: now,
      updatedAt: now,
      expiresAt: retentionUntil(now, environment),
    });
    await insertPaymentLines(
      tx,
      lines.map((l, i) => ({
        documentId: doc.id,
        lineIndex: i,
        platformId: scope.platformId,
        companyId: scope.companyId,
        paymentId: 'P1',
        endToEndId: l.endToEndId ?? `E2E-${counter}-${i}`,
        amountMinor: minor(l.amount),
        amount: l.amount,
        currency: l.currency ?? 'EUR',
        payeeName: l.payee ?? `Payee ${i}`,
        payeeIban: 'FI2112345600000785',
        state: l.state ?? 'pending',
        evidence:
          l.state && l.state !== 'pending' ? (options.evidence ?? { source: 'pain.002', summary: l.state }) : null,
        updatedAt: now,
      })),
    );
    await recordEvent(t.ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'payment.submitted',
      message: `${journalNo} submitted`,
      metadata: { documentId: doc.id, journalNo },
      bankKey: doc.bankKey,
      environment,
    });
    return doc;
  });
}

export async function seedInbound(
  t: TestApp,
  scope: CompanyScope,
  options: { createdAt?: Date; summary?: string } = {},
) {
  const now = options.createdAt ?? t.ctx.clock.now();
  const statement = { messageId: `STMT-${++counter}`, accountIban: 'FI2112345600000785', transactions: [] };
  return t.ctx.db.transaction(async (tx) => {
    const journalNo = await nextJournalNo(tx, scope.companyId, 'inbound');
    return insertDocument(tx, {
      id: t.ctx.ids.next('doc'),
      platformId: scope.platformId,
      companyId: scope.companyId,
      journalNo,
      direction: 'inbound',
      type: 'camt.053',
      sourceFormat: 'camt.053.001.02',
      bankKey: 'demo',
      environment: 'test',
      status: 'ingested',
      messageId: statement.messageId,
      importSource: 'api',
      transactionCount: 0,
      totals: [],
      summary: options.summary ?? 'Statement FI21 1234',
      accountIban: statement.accountIban,
      accountCurrency: 'EUR',
      payloadSealed: t.ctx.encryptor.encrypt(JSON.stringify(statement)),
      createdAt: now,
      updatedAt: now,
      expiresAt: retentionUntil(now, 'test'),
    });
  });
}
