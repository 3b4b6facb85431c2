/**
 * A bounded map of values read recently, least recently used out first. For lookups whose answer is
 * re-checked where it matters (see its users), so an entry may be stale but never wrong in effect.
 */
export class RecentCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly maxEntries: number;

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: moving the entry to the end makes the first one the least recent.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Removes every entry whose value matches (a rare, full scan: revocation). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, value] of this.entries) if (matches(value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** One RecentCache per owner (a database pool, as the submit batcher is per pool), made on first use. */
export function recentCachePer<V>(maxEntries: number): (owner: object) => RecentCache<V> {
  const caches = new WeakMap<object, RecentCache<V>>();
  return (owner) => {
    let cache = caches.get(owner);
    if (!cache) {
      cache = new RecentCache<V>(maxEntries);
      caches.set(owner, cache);
    }
    return cache;
  };
}
