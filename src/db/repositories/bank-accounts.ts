import { and, asc, count, eq, gt, or } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { bankAccounts } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

export type BankAccountRow = typeof bankAccounts.$inferSelect;
export type NewBankAccount = typeof bankAccounts.$inferInsert;

/**
 * The company's account with this identity, created when new, and locked until the caller's
 * transaction ends (two ingests of the same account serialise their balance updates).
 */
export async function upsertBankAccount(tx: Executor, row: NewBankAccount): Promise<BankAccountRow> {
  await tx.insert(bankAccounts).values(row).onConflictDoNothing();
  const rows = await tx
    .select()
    .from(bankAccounts)
    .where(
      and(
        eq(bankAccounts.platformId, row.platformId),
        eq(bankAccounts.companyId, row.companyId),
        eq(bankAccounts.accountKey, row.accountKey),
      ),
    )
    .limit(1)
    .for('update');
  return rows[0]!;
}

export async function updateBankAccount(
  tx: Executor,
  scope: CompanyScope,
  id: string,
  patch: Partial<
    Pick<
      NewBankAccount,
      | 'lastReceivedData'
      | 'latestBalance'
      | 'latestBalanceCurrency'
      | 'latestBalanceDate'
      | 'bankKey'
      | 'bankName'
      | 'connected'
      | 'updatedAt'
    >
  >,
): Promise<void> {
  await tx
    .update(bankAccounts)
    .set(patch)
    .where(and(inCompany(bankAccounts, scope), eq(bankAccounts.id, id)));
}

/** Keyset page in id (creation) order. */
export async function listBankAccounts(
  q: Executor,
  scope: CompanyScope,
  after: string | undefined,
  limit: number,
): Promise<BankAccountRow[]> {
  return q
    .select()
    .from(bankAccounts)
    .where(and(inCompany(bankAccounts, scope), after ? gt(bankAccounts.id, after) : undefined))
    .orderBy(asc(bankAccounts.id))
    .limit(limit);
}

export async function countBankAccounts(q: Executor, scope: CompanyScope): Promise<number> {
  const [row] = await q
    .select({ n: count() })
    .from(bankAccounts)
    .where(and(eq(bankAccounts.platformId, scope.platformId), eq(bankAccounts.companyId, scope.companyId)));
  return row?.n ?? 0;
}

/**
 * By id (`acct_...`), IBAN or proprietary account id; with several currency accounts on one IBAN,
 * the oldest.
 */
export async function findBankAccount(
  q: Executor,
  scope: CompanyScope,
  idOrIban: string,
): Promise<BankAccountRow | undefined> {
  const rows = await q
    .select()
    .from(bankAccounts)
    .where(
      and(
        inCompany(bankAccounts, scope),
        or(eq(bankAccounts.id, idOrIban), eq(bankAccounts.iban, idOrIban), eq(bankAccounts.accountOther, idOrIban)),
      ),
    )
    .orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id))
    .limit(1);
  return rows[0];
}
