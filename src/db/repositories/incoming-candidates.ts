import { and, asc, eq, inArray, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { incomingPayments } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

/** Letters and digits only, upper case: looser than comparableReference, so equal there is equal here. */
const loose = (column: SQLWrapper) => sql`upper(regexp_replace(${column}, '[^[:alnum:]]', '', 'g'))`;

/**
 * The open credits (unmatched, partly matched) of a currency that could name a new expected payment by
 * one of the matcher's rules: its reference or invoice number as their structured reference or end-to-end
 * id (rules 1 and 2, any date), or within their remittance text or its counterparty account as theirs
 * (rules 4 and 3, booked within the window). A superset (the keys are compared letters and digits only,
 * amounts are left to the matcher), oldest booking first.
 */
export async function creditsNaming(
  q: Executor,
  scope: CompanyScope,
  keys: {
    currency: string;
    names: string[];
    accounts: string[];
    /** Rules 3 and 4 take a credit booked in this window only (YYYY-MM-DD, windowDays included). */
    window: { from: string; to: string };
    limit: number;
  },
): Promise<string[]> {
  const names = keys.names.filter((k) => k.length > 0);
  const accounts = keys.accounts.filter((k) => k.length > 0);
  const either: SQL[] = [];
  const windowed: SQL[] = [];
  for (const name of names) {
    either.push(sql`${loose(incomingPayments.reference)} = ${name}`);
    either.push(sql`${loose(incomingPayments.endToEndId)} = ${name}`);
    // Remittance keys are at least three characters (matcher.ts remittanceKeys).
    if (name.length >= 3) windowed.push(sql`${loose(incomingPayments.remittance)} LIKE ${`%${name}%`}`);
  }
  if (accounts.length > 0) windowed.push(inArray(loose(incomingPayments.counterpartyIban), accounts));
  if (windowed.length > 0) {
    // The date first: the remittance's regular expression runs only on credits the window admits (a
    // credit without dates is inside every window, as in the matcher).
    const booked = sql`coalesce(${incomingPayments.bookingDate}, ${incomingPayments.valueDate})`;
    either.push(
      sql`((${booked} IS NULL OR ${booked} BETWEEN ${keys.window.from}::date AND ${keys.window.to}::date) AND (${sql.join(windowed, sql` OR `)}))`,
    );
  }
  if (either.length === 0) return [];
  const rows = await q
    .select({ id: incomingPayments.id })
    .from(incomingPayments)
    .where(
      and(
        inCompany(incomingPayments, scope),
        inArray(incomingPayments.status, ['unmatched', 'partially-matched']),
        eq(incomingPayments.currency, keys.currency),
        sql`(${sql.join(either, sql` OR `)})`,
      ),
    )
    .orderBy(asc(incomingPayments.bookingDate), asc(incomingPayments.id))
    .limit(keys.limit);
  return rows.map((r) => r.id);
}
