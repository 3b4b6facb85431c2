/**
 * A balance as a signed decimal string: a debit balance is negative (camt `CdtDbtInd` DBIT, MT940
 * `D`), a credit one positive; zero has no sign, and an amount already signed is negated, never
 * signed twice. The one place that says so for the text of a balance (accounts, ingest summaries,
 * statement gaps, the dashboard).
 */
export function signedBalance(b: { amount: string; direction?: string | undefined }): string {
  if (b.direction !== 'debit' || /^[+-]?0*([.,]0*)?$/.test(b.amount)) return b.amount;
  return b.amount.startsWith('-') ? b.amount.slice(1) : `-${b.amount}`;
}
