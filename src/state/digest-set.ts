// A set of texts kept as 128-bit digests (digest128) in typed arrays, outside V8's heap: 16 bytes a
// slot, at most seven eighths full, in pages (typedPages) that never make malloc raise its mmap
// threshold. A Set of 8-character digest strings was ~58 bytes a text on the heap (a string each and
// the Set's table), which the collector traced and promoted; the local history keeps one for every
// index line of a run (a batch of 100,000 names adds 100,000). One bit of the 128 marks a used slot,
// so two texts are taken for one only when 127 bits of their digests agree.
import { digest128 } from './ids.js';
import { PAGE_BITS, PAGE_SLOTS, typedPages } from './typed-pages.js';

/** Slots a page: four words each. */
const SLOT_BITS = PAGE_BITS - 2;
const SLOT_MASK = (PAGE_SLOTS >>> 2) - 1;

export class DigestSet {
  /** Four words a slot; a used slot's first word has its lowest bit set. */
  #pages = typedPages(Uint32Array, 4 * 1024);
  #slots = 1024;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Bytes the set holds (all its pages). */
  get bytes(): number {
    return this.#slots * 4 * Uint32Array.BYTES_PER_ELEMENT;
  }

  /** Adds text; false when it was there already. */
  add(text: string): boolean {
    const [a, b, c, d] = digestOf(text);
    const slot = this.#find(a, b, c, d);
    const words = this.#pages[slot >>> SLOT_BITS]!;
    const at = (slot & SLOT_MASK) * 4;
    if (words[at] !== 0) return false;
    put(words, at, a, b, c, d);
    this.#size += 1;
    // Seven eighths full at most: linear probing then looks at a few dozen slots for a new text at worst.
    if (this.#size * 8 > this.#slots * 7) this.#grow();
    return true;
  }

  /** The slot holding the digest, else the empty one where it would go (linear probing). */
  #find(a: number, b: number, c: number, d: number): number {
    const mask = this.#slots - 1;
    for (let slot = b & mask; ; slot = (slot + 1) & mask) {
      const words = this.#pages[slot >>> SLOT_BITS]!;
      const at = (slot & SLOT_MASK) * 4;
      if (words[at] === 0 || (words[at] === a && words[at + 1] === b && words[at + 2] === c && words[at + 3] === d)) return slot;
    }
  }

  #grow(): void {
    const old = this.#pages;
    this.#slots *= 2;
    this.#pages = typedPages(Uint32Array, 4 * this.#slots);
    for (const words of old) {
      for (let at = 0; at < words.length; at += 4) {
        const a = words[at]!;
        if (a === 0) continue;
        const b = words[at + 1]!;
        const c = words[at + 2]!;
        const d = words[at + 3]!;
        const slot = this.#find(a, b, c, d);
        put(this.#pages[slot >>> SLOT_BITS]!, (slot & SLOT_MASK) * 4, a, b, c, d);
      }
    }
  }
}

function put(words: Uint32Array, at: number, a: number, b: number, c: number, d: number): void {
  words[at] = a;
  words[at + 1] = b;
  words[at + 2] = c;
  words[at + 3] = d;
}

/** The text's 128-bit digest as four words, the first with its lowest bit set (a used slot). */
function digestOf(text: string): [number, number, number, number] {
  const [a, b, c, d] = digest128(text);
  return [(a | 1) >>> 0, b, c, d];
}
