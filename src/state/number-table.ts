// A table of numbers for per-name bookkeeping (a batch's plan and dedupe, the answer cache's file
// names): keys are 53-bit hashes (hash53), values small integers, held in typed arrays outside V8's
// heap. A Map or Set of 100,000 such hashes was ~4 MB of heap (its table, and a heap number a key),
// which the collector traced, copied as it grew, and promoted; here it is 12 bytes a slot, at most
// half full.

export class NumberTable {
  /** Each slot's key plus one (0: empty): a key is below 2^53, so the sum is still exact. */
  #keys: Float64Array;
  #values: Int32Array;
  #size = 0;

  constructor(slots = 1024) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(8, slots)));
    this.#keys = new Float64Array(size);
    this.#values = new Int32Array(size);
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes the table holds (both arrays): what a test checks stays proportionate. */
  get bytes(): number {
    return this.#keys.byteLength + this.#values.byteLength;
  }

  get(key: number): number | undefined {
    const slot = this.#find(key);
    return this.#keys[slot] === 0 ? undefined : this.#values[slot];
  }

  /** Adds key with value; false (and the value kept is the first one) when key is there already. */
  add(key: number, value: number): boolean {
    if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`not a table key: ${key}`);
    const slot = this.#find(key);
    if (this.#keys[slot] !== 0) return false;
    this.#keys[slot] = key + 1;
    this.#values[slot] = value;
    this.#size += 1;
    if (this.#size * 2 > this.#keys.length) this.#grow();
    return true;
  }

  /** The slot holding key, else the empty one where it would go (linear probing from its low 32 bits). */
  #find(key: number): number {
    const keys = this.#keys;
    const mask = keys.length - 1;
    const stored = key + 1;
    let slot = (key >>> 0) & mask;
    while (keys[slot] !== 0 && keys[slot] !== stored) slot = (slot + 1) & mask;
    return slot;
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#keys = new Float64Array(keys.length * 2);
    this.#values = new Int32Array(keys.length * 2);
    for (let slot = 0; slot < keys.length; slot++) {
      const stored = keys[slot] as number;
      if (stored === 0) continue;
      const at = this.#find(stored - 1);
      this.#keys[at] = stored;
      this.#values[at] = values[slot] as number;
    }
  }
}
