// Typed arrays of many slots as pages of PAGE_SLOTS each. glibc's malloc serves a block of 128 KB or
// more with mmap, and once such a block is freed it raises its mmap threshold to that size: every
// smaller block after it (a socket's read buffer, an answer's bytes) then comes from the heap's arena,
// which a long batch fragments and never gives back (a 100,000-name batch on Node 22: ~12 MB more
// RSS). A structure that grows by copying into a larger array freed one such block at each growth;
// in pages of at most 32 KB it frees none.

/** Slots a page, as a shift: 4,096 (32 KB of Float64, less of the narrower arrays). */
export const PAGE_BITS = 12;
export const PAGE_SLOTS = 1 << PAGE_BITS;
export const PAGE_MASK = PAGE_SLOTS - 1;

type TypedArrayOf<T> = { new (length: number): T };

/** Pages holding `slots` slots between them (one shorter page when fewer than PAGE_SLOTS). */
export function typedPages<T>(of: TypedArrayOf<T>, slots: number): T[] {
  const pages: T[] = [];
  for (let left = slots; left > 0; left -= PAGE_SLOTS) pages.push(new of(Math.min(PAGE_SLOTS, left)));
  return pages;
}
