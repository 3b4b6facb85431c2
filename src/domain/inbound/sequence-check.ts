import type { StatementBlock } from './types.ts';

/**
 * Gap and duplicate detection between consecutive statements of one account in a file
 * (camt ElctrncSeqNb, MT940 :28C: statement number[/page]), plus "opening = previous closing".
 * Warnings go on the later statement; statements are never dropped for it.
 * An account is its IBAN (or other id) and its currency: a multi-currency account is one sub-account per
 * currency, each numbering its own statements (eleven currencies may each send statement 1).
 */
type Seq = { number: number; page: number | null };

function parseSeq(text: string | null): Seq | null {
  if (!text) return null;
  const m = /^(\d{1,9})(?:\/(\d{1,9}))?$/.exec(text.trim());
  if (!m) return null;
  const number = Number(m[1]);
  // 0 / 00000 is what many banks write when they do not number statements.
  if (number === 0) return null;
  return { number, page: m[2] === undefined ? null : Number(m[2]) };
}

export function applySequenceChecks(blocks: StatementBlock[]): void {
  const last = new Map<
    string,
    { seq: Seq | null; closing: { amount: string; direction: string; currency: string } | null; index: number }
  >();
  for (const block of blocks) {
    if (!block.ok) continue;
    const s = block.statement;
    const account = s.accountIban ?? s.accountOther;
    if (!account) continue;
    const currency = s.accountCurrency ?? s.closingBalance?.currency ?? s.openingBalance?.currency ?? '';
    const key = `${account} ${currency}`;
    const seq = parseSeq(s.sequenceNumber);
    const prev = last.get(key);
    if (prev) {
      const label = `statement ${block.index + 1} (${account}${currency ? ` ${currency}` : ''})`;
      if (seq && prev.seq) {
        const samePage = seq.number === prev.seq.number && seq.page === prev.seq.page;
        const nextPage =
          seq.number === prev.seq.number &&
          seq.page !== null &&
          prev.seq.page !== null &&
          seq.page === prev.seq.page + 1;
        const nextNumber = seq.number === prev.seq.number + 1 && (seq.page === null || seq.page <= 1);
        if (samePage) {
          block.warnings.push({
            code: 'sequence_duplicate',
            message: `${label}: sequence number ${s.sequenceNumber} repeats statement ${prev.index + 1}`,
          });
        } else if (!nextPage && !nextNumber && seq.number !== prev.seq.number) {
          block.warnings.push({
            code: 'sequence_gap',
            message: `${label}: sequence number ${s.sequenceNumber} does not follow ${prev.seq.number}${prev.seq.page === null ? '' : `/${prev.seq.page}`}`,
          });
        }
      }
      const o = s.openingBalance;
      const c = prev.closing;
      if (
        o &&
        c &&
        o.currency === c.currency &&
        (o.amount !== c.amount || (o.direction !== c.direction && o.amount !== formatZero(o.amount)))
      ) {
        block.warnings.push({
          code: 'sequence_gap',
          message: `${label}: opening balance ${o.direction === 'debit' ? '-' : ''}${o.amount} differs from the previous statement's closing ${c.direction === 'debit' ? '-' : ''}${c.amount} ${c.currency}`,
        });
      }
    }
    const cl = s.closingBalance;
    last.set(key, {
      seq,
      closing: cl ? { amount: cl.amount, direction: cl.direction, currency: cl.currency } : null,
      index: block.index,
    });
  }
}

function formatZero(amount: string): string {
  return /^0+(?:\.0+)?$/.test(amount) ? amount : '';
}
