/**
 * Duplicate detection for endToEndIds in one message. Batches usually number their ids in ascending order,
 * and a strictly ascending sequence holds no duplicate: while that lasts one string comparison per id is
 * enough. The first id out of order moves everything seen so far into a Set, which decides from then on.
 * `capacity` (the number of ids expected) sizes the list kept until then, so it is not grown id by id
 * (up to a length V8 still allocates as a plain array; beyond, it grows as with push).
 */
const PREALLOCATED_MAX = 65_536;

export class UniqueIds {
  private last: string | undefined;
  private ordered: string[];
  private count = 0;
  private set: Set<string> | undefined;

  constructor(capacity = 0) {
    this.ordered = new Array(Math.min(capacity, PREALLOCATED_MAX));
  }

  /** False when `id` was seen before. */
  add(id: string): boolean {
    const set = this.set;
    if (set === undefined) {
      if (this.last === undefined || this.last < id) {
        this.last = id;
        this.ordered[this.count++] = id;
        return true;
      }
      this.set = new Set(this.ordered.slice(0, this.count));
      this.ordered = [];
      return this.add(id);
    }
    const before = set.size;
    set.add(id);
    return set.size !== before;
  }
}
