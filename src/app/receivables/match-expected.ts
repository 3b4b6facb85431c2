import type { CompanyScope, Tx } from '../../db/executor.ts';
import { debitsNaming } from '../../db/repositories/debit-entries.ts';
import { creditsNaming } from '../../db/repositories/incoming-candidates.ts';
import type { ExpectedRow } from '../../db/repositories/receivables.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { matchIncoming, settingsOf } from './match.ts';
import { matchDebits } from './match-debits.ts';

/** Credits (or debits) read for one new expected payment at most (the oldest first; the rest wait for a person). */
const CREDITS = 2000;

const letters = (value: string | null) => (value ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * Matches an expected payment created (or changed) after its credit arrived (docs/adr/0075): the open
 * credits that could name it by a rule (its reference, invoice number or counterparty account) go
 * through `matchIncoming`, the very matching a statement's credits get, against all the company's open
 * expected payments, so the rules, their order, the ambiguity test and the evidence are the same: a
 * credit that fits this one and another is still ambiguous and stays for a person. A debit expected
 * payment the same way against the open statement debits (`debitsNaming`, `matchDebits`, docs/adr/0077).
 */
export async function matchNewExpected(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  e: ExpectedRow,
): Promise<{ matched: number; ambiguous: number }> {
  const { windowDays } = await settingsOf(tx, scope);
  const shift = (date: string, days: number) =>
    new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  const keys = {
    currency: e.currency,
    names: [letters(e.referenceValue), letters(e.remittanceContains)],
    accounts: [letters(e.counterpartyIban), letters(e.counterpartyOther)],
    window: { from: shift(e.dateFrom, -windowDays), to: shift(e.dateTo, windowDays) },
    limit: CREDITS,
  };
  const audit: AuditEvent[] = [];
  let outcome: { matched: number; ambiguous: number };
  if (e.direction === 'debit') {
    const ids = await debitsNaming(tx, scope, keys);
    if (ids.length === 0) return { matched: 0, ambiguous: 0 };
    outcome = await matchDebits(ctx, tx, scope, ids, audit);
  } else {
    const ids = await creditsNaming(tx, scope, keys);
    if (ids.length === 0) return { matched: 0, ambiguous: 0 };
    outcome = await matchIncoming(ctx, tx, scope, ids, audit);
  }
  for (const a of audit) a.metadata = { ...a.metadata, expectedPaymentId: e.id, trigger: 'expected-payment' };
  await recordEvents(ctx, tx, audit);
  return outcome;
}
