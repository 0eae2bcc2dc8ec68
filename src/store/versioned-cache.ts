/**
 * Values that stay good while the version they were stored under is current (a list's change counter,
 * the database's change epoch): a lookup with another version drops the entry. The least recently used
 * entries go first once the entries' total weight passes the bound.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, { version: number; value: V; weight: number }>();
  private readonly maxWeight: number;
  private readonly weigh: (value: V) => number;
  private weight = 0;

  constructor(maxWeight: number, weigh: (value: V) => number = () => 1) {
    this.maxWeight = maxWeight;
    this.weigh = weigh;
  }

  get(key: string, version: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.version !== version) {
      this.weight -= entry.weight;
      return undefined;
    }
    // Most recently used last, so the oldest is evicted first.
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, version: number, value: V): void {
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return;
    this.delete(key);
    this.entries.set(key, { version, value, weight });
    this.weight += weight;
    while (this.weight > this.maxWeight) this.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}
