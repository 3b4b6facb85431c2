import { addDecimal, type Decimal } from '../decimal.ts';
import { addEntry, type EntryTotals } from '../statement-totals.ts';
import type { Direction } from '../types.ts';
import type { CamtAmount } from './camt-values.ts';

/**
 * addEntry for a statement's entries, with plain amounts (units at scale 2 below 10^15, see CamtAmount)
 * summed as numbers instead of one bigint per entry and per sum. A double holds every integer below 2^53
 * exactly, and each running sum is handed to the totals (as one Decimal at scale 2) before it could leave
 * that range. The totals end up exactly as addEntry alone would leave them: counts are kept as it keeps
 * them, and the sums are exact decimals whose scale is the largest added, so adding the plain amounts in
 * bulk changes neither value nor scale. Call flush before the totals are read.
 */
const LIMIT = 2 ** 52; // |sum| stays below 2^52 + 10^15 < 2^53

export class EntrySums {
  credit = 0;
  debit = 0;
  net = 0;
  creditSeen = false;
  debitSeen = false;
  netSeen = false;

  add(t: EntryTotals, amount: CamtAmount, direction: Direction, booked: boolean): void {
    const units = amount.plain;
    if (units < 0) {
      addEntry(t, amount, amount.currency, direction, booked);
      return;
    }
    t.count++;
    t.currency ??= amount.currency;
    if (amount.currency !== t.currency) {
      t.otherCurrencies.add(amount.currency);
      return;
    }
    if (direction === 'credit') {
      t.creditCount++;
      this.credit += units;
      this.creditSeen = true;
      if (booked) {
        this.net += units;
        this.netSeen = true;
      }
    } else {
      t.debitCount++;
      this.debit += units;
      this.debitSeen = true;
      if (booked) {
        this.net -= units;
        this.netSeen = true;
      }
    }
    if (this.credit >= LIMIT || this.debit >= LIMIT || this.net >= LIMIT || this.net <= -LIMIT) this.flush(t);
  }

  /** Adds what was summed to `t` and starts over. */
  flush(t: EntryTotals): void {
    if (this.creditSeen) addInPlace(t.creditSum, this.credit);
    if (this.debitSeen) addInPlace(t.debitSum, this.debit);
    if (this.netSeen) addInPlace(t.bookedNet, this.net);
    this.credit = 0;
    this.debit = 0;
    this.net = 0;
    this.creditSeen = false;
    this.debitSeen = false;
    this.netSeen = false;
  }
}

function addInPlace(sum: Decimal, units: number): void {
  const r = addDecimal(sum, { units: BigInt(units), scale: 2 });
  sum.units = r.units;
  sum.scale = r.scale;
}
