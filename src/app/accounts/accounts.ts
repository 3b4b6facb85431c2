import { listAccountStatements } from '../../db/repositories/account-statements.ts';
import {
  type BankAccountRow,
  countBankAccounts,
  findBankAccount,
  listBankAccounts,
} from '../../db/repositories/bank-accounts.ts';
import { listConnections } from '../../db/repositories/connections.ts';
import { findStatementGaps } from '../../domain/journal/statement-gaps.ts';
import type { AppContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { requireCompanyMember } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, page } from '../pagination.ts';

/** The contract's Bank account; `connected` is live: the company has a connection to its bank. */
function accountView(row: BankAccountRow, connectedBanks: Set<string>, masked: boolean) {
  return {
    id: row.id,
    platformId: row.platformId,
    companyId: row.companyId,
    iban: row.iban,
    accountOther: row.accountOther,
    country: row.country,
    currency: row.currency,
    bankKey: row.bankKey,
    bankName: row.bankName,
    connected: row.bankKey !== null && connectedBanks.has(row.bankKey),
    lastReceivedData: row.lastReceivedData?.toISOString() ?? null,
    latestBalance: masked && row.latestBalance !== null ? '***' : row.latestBalance,
    latestBalanceCurrency: row.latestBalanceCurrency,
    latestBalanceDate: row.latestBalanceDate,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function memberScope(ctx: AppContext, principal: Principal, companyId: string) {
  const scope = await companyScope(ctx, principal, companyId);
  // A token's company was checked by companyScope (its user administers it).
  if (principal.kind !== 'token') requireCompanyMember(principal, scope.platformId, companyId);
  return scope;
}

async function connectedBanks(ctx: AppContext, scope: { platformId: string; companyId: string }) {
  return new Set((await listConnections(ctx.db, scope)).map((c) => c.bankKey));
}

/** GET /accounts: the company's bank accounts in creation order, balances masked. */
export async function listAccounts(
  ctx: AppContext,
  principal: Principal,
  query: { companyId: string; cursor?: string | undefined; limit?: number | undefined },
) {
  const scope = await memberScope(ctx, principal, query.companyId);
  const limit = query.limit ?? 100;
  const rows = await listBankAccounts(ctx.db, scope, decodeCursor(query.cursor), limit + 1);
  const result = page(rows, limit);
  const banks = await connectedBanks(ctx, scope);
  return {
    items: result.items.map((r) => accountView(r, banks, true)),
    nextCursor: result.nextCursor,
    total: await countBankAccounts(ctx.db, scope),
  };
}

/**
 * GET /accounts/statements: one account (by acct_ id or IBAN) with its real balance, its statement
 * summaries oldest period first (ties in journal order), and the gaps between consecutive ones.
 */
export async function accountStatements(
  ctx: AppContext,
  principal: Principal,
  query: { companyId: string; account: string },
) {
  const scope = await memberScope(ctx, principal, query.companyId);
  const account = await findBankAccount(ctx.db, scope, query.account);
  if (!account) throw notFound('bank account');
  const rows = await listAccountStatements(ctx.db, scope, account.id);
  const journalOrder = (no: string) => Number(no.slice(no.indexOf('-') + 1));
  // Statement date: the closing balance's date, else the period end or start (date part only);
  // statements of the same date keep journal order (block order inside a file).
  const dateOf = (r: (typeof rows)[number]) => (r.closing?.date ?? r.toDate ?? r.fromDate ?? '').slice(0, 10);
  rows.sort((a, b) => dateOf(a).localeCompare(dateOf(b)) || journalOrder(a.journalNo) - journalOrder(b.journalNo));
  const statements = rows.map((r) => ({
    documentId: r.documentId,
    journalNo: r.journalNo,
    fromDate: r.fromDate,
    toDate: r.toDate,
    sequenceNumber: r.sequenceNumber,
    opening: r.opening,
    closing: r.closing,
    txCount: r.txCount,
  }));
  return {
    account: accountView(account, await connectedBanks(ctx, scope), false),
    statements,
    gaps: findStatementGaps(statements),
  };
}
