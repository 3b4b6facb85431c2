import { addDecimal, type Decimal } from '../money/decimal.ts';
import type { EntryTotals } from './statement-totals.ts';

/**
 * addEntry (camt and MT940) for amounts already known as units at scale 2 below 10^15, summed as numbers instead of one
 * BigInt per entry and per sum: a double holds every integer below 2^53 exactly, and each running sum is
 * handed to the totals (as one Decimal at scale 2) before it could leave that range. The totals end up
 * exactly as addEntry would leave them: counts are kept as it keeps them, and the sums are exact
 * decimals, so adding the entries in bulk instead of one by one changes neither value nor scale.
 * Call flush before the totals are read or replaced.
 */
const LIMIT = 2 ** 52; // |sum| stays below 2^52 + 10^15 < 2^53

export class PlainSums {
  credit = 0;
  debit = 0;
  net = 0;
  creditSeen = false;
  debitSeen = false;
  netSeen = false;

  add(t: EntryTotals, units: number, currency: string, credit: boolean, booked: boolean): void {
    t.count++;
    t.currency ??= currency;
    if (currency !== t.currency) {
      t.otherCurrencies.add(currency);
      return;
    }
    if (credit) {
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
