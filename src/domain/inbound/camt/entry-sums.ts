import { PlainSums } from '../plain-sums.ts';
import { addEntry, type EntryTotals } from '../statement-totals.ts';
import type { Direction } from '../types.ts';
import type { CamtAmount } from './camt-values.ts';

/**
 * addEntry for a statement's camt entries: plain amounts (units at scale 2 below 10^15, see CamtAmount)
 * go to the exact number sums of PlainSums, any other amount to addEntry itself. Call flush before the
 * totals are read.
 */
export class EntrySums extends PlainSums {
  addAmount(t: EntryTotals, amount: CamtAmount, direction: Direction, booked: boolean): void {
    if (amount.plain < 0) addEntry(t, amount, amount.currency, direction, booked);
    else this.add(t, amount.plain, amount.currency, direction === 'credit', booked);
  }
}
