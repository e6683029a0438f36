// A table of numbers for per-name bookkeeping (a batch's plan and dedupe, the answer cache's file
// names): keys are 53-bit hashes (hash53), values small integers, held in typed arrays outside V8's
// heap. A Map or Set of 100,000 such hashes was ~4 MB of heap (its table, and a heap number a key),
// which the collector traced, copied as it grew, and promoted; here it is 12 bytes a slot, at most
// half full, in pages (typedPages) that never make malloc raise its mmap threshold.
import { PAGE_BITS, PAGE_MASK, typedPages } from './typed-pages.js';

export class NumberTable {
  /** Each slot's key plus one (0: empty): a key is below 2^53, so the sum is still exact. */
  #keys: Float64Array[];
  #values: Int32Array[];
  #slots: number;
  #size = 0;

  constructor(slots = 1024) {
    this.#slots = 2 ** Math.ceil(Math.log2(Math.max(8, slots)));
    this.#keys = typedPages(Float64Array, this.#slots);
    this.#values = typedPages(Int32Array, this.#slots);
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes the table holds (all its pages): what a test checks stays proportionate. */
  get bytes(): number {
    return this.#slots * (Float64Array.BYTES_PER_ELEMENT + Int32Array.BYTES_PER_ELEMENT);
  }

  get(key: number): number | undefined {
    const slot = this.#find(key);
    const page = slot >>> PAGE_BITS;
    const at = slot & PAGE_MASK;
    return this.#keys[page]![at] === 0 ? undefined : this.#values[page]![at];
  }

  /** Adds key with value; false (and the value kept is the first one) when key is there already. */
  add(key: number, value: number): boolean {
    if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`not a table key: ${key}`);
    const slot = this.#find(key);
    const page = slot >>> PAGE_BITS;
    const at = slot & PAGE_MASK;
    if (this.#keys[page]![at] !== 0) return false;
    this.#keys[page]![at] = key + 1;
    this.#values[page]![at] = value;
    this.#size += 1;
    if (this.#size * 2 > this.#slots) this.#grow();
    return true;
  }

  /** The slot holding key, else the empty one where it would go (linear probing from its low 32 bits). */
  #find(key: number): number {
    const mask = this.#slots - 1;
    const stored = key + 1;
    for (let slot = (key >>> 0) & mask; ; slot = (slot + 1) & mask) {
      const found = this.#keys[slot >>> PAGE_BITS]![slot & PAGE_MASK];
      if (found === 0 || found === stored) return slot;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#slots *= 2;
    this.#keys = typedPages(Float64Array, this.#slots);
    this.#values = typedPages(Int32Array, this.#slots);
    for (let page = 0; page < keys.length; page++) {
      const pageKeys = keys[page]!;
      const pageValues = values[page]!;
      for (let at = 0; at < pageKeys.length; at++) {
        const stored = pageKeys[at]!;
        if (stored === 0) continue;
        const slot = this.#find(stored - 1);
        this.#keys[slot >>> PAGE_BITS]![slot & PAGE_MASK] = stored;
        this.#values[slot >>> PAGE_BITS]![slot & PAGE_MASK] = pageValues[at]!;
      }
    }
  }
}
