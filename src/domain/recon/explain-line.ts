/**
 * Why a statement debit did not prove an outbound line that is still unanswered (the exceptions queue,
 * DESIGN.md, "unanswered-outbound"): amount delta (the entry less the line), days from the execution
 * date to the booking, and whether an identifier agrees, with what differs in words. Pure.
 */
export type LineExplained = {
  amountDeltaMinor: bigint;
  daysDelta: number;
  referenceMatch: boolean;
  why: string[];
};

const DAY_MS = 86_400_000;
const dayOf = (date: string | null) =>
  date === null || date.length < 10 ? null : Math.floor(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / DAY_MS);
const same = (a: string | null, b: string | null) =>
  a !== null && b !== null && a !== '' && a !== 'NOTPROVIDED' && a.toUpperCase() === b.toUpperCase();

export function explainLine(
  line: {
    amountMinor: bigint;
    endToEndId: string | null;
    instructionId: string | null;
    payeeIban: string | null;
    executionDate: string | null;
  },
  entry: {
    amountMinor: bigint;
    bookingDate: string | null;
    endToEndId: string | null;
    instructionId: string | null;
    counterpartyIban: string | null;
  },
  /** The booking-date window around the execution date that matchEntries allows (days before, after). */
  window: { before: number; after: number },
): LineExplained {
  const delta = entry.amountMinor - line.amountMinor;
  const executed = dayOf(line.executionDate);
  const booked = dayOf(entry.bookingDate);
  const days = executed === null || booked === null ? 0 : booked - executed;
  const referenceMatch = same(entry.endToEndId, line.endToEndId) || same(entry.instructionId, line.instructionId);
  const why: string[] = [];
  if (!referenceMatch)
    why.push(
      entry.endToEndId === null
        ? 'the entry names no end-to-end id'
        : `end-to-end id ${entry.endToEndId}, the line's ${line.endToEndId ?? 'none'}`,
    );
  if (delta !== 0n) why.push(`amount differs by ${delta > 0n ? '+' : ''}${delta} minor units`);
  const iban = (x: string | null) => (x ?? '').replace(/\s/g, '').toUpperCase();
  if (line.payeeIban !== null && iban(entry.counterpartyIban) !== iban(line.payeeIban))
    why.push(`counterparty account ${entry.counterpartyIban ?? 'absent'}, the payee's ${line.payeeIban}`);
  if (days < -window.before || days > window.after)
    why.push(`booked ${days} days from the execution date (allowed -${window.before} to +${window.after})`);
  if (why.length === 0) why.push("the line's answer window closed before the entry was booked");
  return { amountDeltaMinor: delta, daysDelta: days, referenceMatch, why };
}
