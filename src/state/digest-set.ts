// A set of texts kept as 128-bit digests (digest128) in one typed array, outside V8's heap: 16
// bytes a slot, at most seven eighths full. A Set of 8-character digest strings was
// ~58 bytes a text on the heap (a string each and the Set's table), which the collector traced and
// promoted; the local history keeps one for every index line of a run (a batch of 100,000 names adds
// 100,000). One bit of the 128 marks a used slot, so two texts are taken for one only when 127 bits
// of their digests agree.
import { digest128 } from './ids.js';

export class DigestSet {
  /** Four words a slot; a used slot's first word has its lowest bit set. */
  #words = new Uint32Array(4 * 1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Bytes the set holds. */
  get bytes(): number {
    return this.#words.byteLength;
  }

  /** Adds text; false when it was there already. */
  add(text: string): boolean {
    const [a, b, c, d] = digestOf(text);
    const at = this.#find(a, b, c, d) * 4;
    if (this.#words[at] !== 0) return false;
    this.#put(at, a, b, c, d);
    this.#size += 1;
    // Seven eighths full at most: linear probing then looks at a few dozen slots for a new text at worst.
    if (this.#size * 8 > (this.#words.length / 4) * 7) this.#grow();
    return true;
  }

  /** The slot holding the digest, else the empty one where it would go (linear probing). */
  #find(a: number, b: number, c: number, d: number): number {
    const words = this.#words;
    const mask = words.length / 4 - 1;
    for (let slot = b & mask; ; slot = (slot + 1) & mask) {
      const at = slot * 4;
      if (words[at] === 0 || (words[at] === a && words[at + 1] === b && words[at + 2] === c && words[at + 3] === d)) return slot;
    }
  }

  #put(at: number, a: number, b: number, c: number, d: number): void {
    this.#words[at] = a;
    this.#words[at + 1] = b;
    this.#words[at + 2] = c;
    this.#words[at + 3] = d;
  }

  #grow(): void {
    const old = this.#words;
    this.#words = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += 4) {
      const a = old[at] as number;
      if (a === 0) continue;
      const b = old[at + 1] as number;
      const c = old[at + 2] as number;
      const d = old[at + 3] as number;
      this.#put(this.#find(a, b, c, d) * 4, a, b, c, d);
    }
  }
}

/** The text's 128-bit digest as four words, the first with its lowest bit set (a used slot). */
function digestOf(text: string): [number, number, number, number] {
  const [a, b, c, d] = digest128(text);
  return [(a | 1) >>> 0, b, c, d];
}
