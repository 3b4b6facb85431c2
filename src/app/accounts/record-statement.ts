import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import type { CompanyScope, Tx } from '../../db/executor.ts';
import { insertAccountStatement } from '../../db/repositories/account-statements.ts';
import { updateBankAccount, upsertBankAccount } from '../../db/repositories/bank-accounts.ts';
import { listConnections } from '../../db/repositories/connections.ts';
import type { BalanceSummary } from '../../db/schema/accounts.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import type { NormalisedStatement } from '../../domain/inbound/index.ts';
import { signedBalance } from '../../domain/money/signed-balance.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';

type Balance = NonNullable<NormalisedStatement['openingBalance']>;

export function balanceSummary(b: Balance | null): BalanceSummary | null {
  return b ? { amount: b.amount, currency: b.currency, direction: b.direction, date: b.date } : null;
}

/** The account identity of a statement: IBAN, else the proprietary id; plus the currency. */
export function accountKeyOf(s: NormalisedStatement): string | undefined {
  const id = s.accountIban ?? s.accountOther;
  if (!id) return undefined;
  return `${id}|${s.accountCurrency ?? ''}`;
}

/**
 * A journaled statement reaches its bank account (DESIGN.md, Bank accounts): the account is created
 * on first sight, `lastReceivedData` always moves, the latest balance only for a closing balance at
 * least as new as the one held; one account_statements row per statement. Returns the account id,
 * or null for a statement that names no account; a new account's audit event goes onto `audit`, which
 * the caller records last.
 */
export async function recordStatement(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  input: {
    documentId: string;
    /** The statement's header: its transactions are counted by `transactionCount`, not read. */
    statement: NormalisedStatement;
    transactionCount: number;
    bankKey: string | null;
    environment: string;
  },
  audit: AuditEvent[],
): Promise<{ accountId: string; created: boolean } | null> {
  const s = input.statement;
  const key = accountKeyOf(s);
  if (key === undefined) return null;
  // MT940 :25: often carries an IBAN the parser leaves as a proprietary id.
  const otherAsIban = s.accountIban ? null : electronicFormatIBAN(s.accountOther ?? '');
  const iban = s.accountIban ?? (otherAsIban && isValidIBAN(otherAsIban) ? otherAsIban : null);
  const now = ctx.clock.now();
  const newId = ctx.ids.next('acct');
  const connected =
    input.bankKey !== null && (await listConnections(tx, scope)).some((c) => c.bankKey === input.bankKey);
  const account = await upsertBankAccount(tx, {
    id: newId,
    platformId: scope.platformId,
    companyId: scope.companyId,
    accountKey: key,
    iban,
    accountOther: iban ? null : s.accountOther,
    country: iban ? iban.slice(0, 2).toUpperCase() : null,
    currency: s.accountCurrency,
    bankKey: input.bankKey,
    bankName: input.bankKey ? (getProfile(input.bankKey)?.bankName ?? input.bankKey) : null,
    connected,
    createdAt: now,
    updatedAt: now,
  });
  const created = account.id === newId;
  if (created) {
    audit.push({
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'bank_account.created',
      message: `bank account ${iban ?? s.accountOther} (${s.accountCurrency ?? '?'}) created from a statement`,
      metadata: { accountId: account.id, documentId: input.documentId },
      bankKey: input.bankKey,
      environment: input.environment,
    });
  }

  await recordBalances(tx, scope, { ...input, account, connected, now });
  return { accountId: account.id, created };
}

/** The account's latest balance (when this statement is the newest) and the statement's summary row. */
async function recordBalances(
  tx: Tx,
  scope: CompanyScope,
  input: {
    documentId: string;
    statement: NormalisedStatement;
    transactionCount: number;
    bankKey: string | null;
    account: { id: string; bankKey: string | null; latestBalanceDate: string | null };
    connected: boolean;
    now: Date;
  },
): Promise<void> {
  const s = input.statement;
  const { account, connected, now } = input;
  const closing = s.closingBalance;
  const closingDate = closing?.date ?? s.toDate ?? null;
  const newer =
    closing !== null &&
    (account.latestBalanceDate === null || (closingDate !== null && closingDate >= account.latestBalanceDate));
  await updateBankAccount(tx, scope, account.id, {
    lastReceivedData: now,
    updatedAt: now,
    ...(account.bankKey === null && input.bankKey !== null
      ? { bankKey: input.bankKey, bankName: getProfile(input.bankKey)?.bankName ?? input.bankKey, connected }
      : {}),
    ...(newer && closing
      ? {
          latestBalance: signedBalance(closing),
          latestBalanceCurrency: closing.currency,
          latestBalanceDate: closingDate,
        }
      : {}),
  });
  await insertAccountStatement(tx, {
    documentId: input.documentId,
    accountId: account.id,
    companyId: scope.companyId,
    fromDate: s.fromDate,
    toDate: s.toDate,
    sequenceNumber: s.sequenceNumber,
    opening: balanceSummary(s.openingBalance),
    closing: balanceSummary(s.closingBalance),
    txCount: input.transactionCount,
    createdAt: now,
  });
}
