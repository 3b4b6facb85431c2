/**
 * Duplicate detection for endToEndIds in one message. Batches usually number their ids in ascending order,
 * and a strictly ascending sequence holds no duplicate: while that lasts one string comparison per id is
 * enough. The first id out of order moves everything seen so far into a Set, which decides from then on.
 */
export class UniqueIds {
  private last: string | undefined;
  private ordered: string[] = [];
  private set: Set<string> | undefined;

  /** False when `id` was seen before. */
  add(id: string): boolean {
    const set = this.set;
    if (set === undefined) {
      if (this.last === undefined || this.last < id) {
        this.last = id;
        this.ordered.push(id);
        return true;
      }
      this.set = new Set(this.ordered);
      this.ordered = [];
      return this.add(id);
    }
    const before = set.size;
    set.add(id);
    return set.size !== before;
  }
}
