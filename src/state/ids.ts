// Hashes and random ids for rep's local files, without node:crypto until a batch's many hashes pay for
// it: loading it costs a run 17 of Node's own modules, more than a cached answer's whole lookup.
// SHA-256 is rep's own until then (state/sha256.ts, checked against node:crypto); the random ids only keep
// apart the files and records of processes that already differ by pid and time, so Math.random
// (seeded per process by V8 from the system's entropy) is enough for them. Nothing here protects a
// secret from an attacker: the key's fingerprint is a SHA-256, which keeps the key out of file names
// and files.
import { sha256 } from './sha256.js';

/**
 * Hashes made in JavaScript before Node's own SHA-256 takes over: a run's few (a cached answer's name,
 * the key's fingerprint) load no node:crypto; a batch's two a name go native, several times faster.
 */
export const HASHES_BEFORE_NATIVE = 64;
let hashesInJs = 0;
let nativeHash: ((algorithm: string, data: string) => string) | undefined;

/** The SHA-256 of a text's UTF-8 bytes, in lower-case hex. */
export function sha256Hex(text: string): string {
  if (nativeHash || ++hashesInJs > HASHES_BEFORE_NATIVE) {
    nativeHash ??= process.getBuiltinModule('node:crypto').hash;
    return nativeHash('sha256', text); // a string goes as UTF-8, a lone surrogate as U+FFFD, as Buffer.from does
  }
  // Buffer.from, not noble's utf8ToBytes: its TextEncoder is more of Node's code for a run to compile.
  return flatHex(sha256(Buffer.from(text)));
}

/**
 * A checksum of a text (FNV-1a, 32 bits, over its UTF-16 code units) in 8 hex digits: it finds a file
 * that was cut off or damaged, as a SHA-256 would, at a fraction of the cost (SHA-256 in JavaScript
 * is slow on a cold run; docs/performance.md). Not a hash for secrets or names.
 */
export function checksum(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** `bytes` random bytes in lower-case hex (2 characters a byte). */
export function randomHex(bytes: number): string {
  const random = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i++) random[i] = Math.floor(Math.random() * 256);
  return flatHex(random);
}

/**
 * Bytes in hex as one flat string: built with `+=` a piece at a time, V8 keeps it as a tree of its
 * pieces, several times its size, for as long as it lives (a batch's cache and history names).
 */
function flatHex(bytes: Uint8Array): string {
  return hexSlice.call(bytes, 0, bytes.length);
}

/**
 * Buffer's own hex writer, which toString('hex') calls once it has looked the encoding up by name: a
 * run that calls toString() compiles Node's table of encodings, and a cached answer needs no other.
 */
const hexSlice = (Buffer.prototype as unknown as { hexSlice(this: Uint8Array, start: number, end: number): string }).hexSlice;

/**
 * A 128-bit digest of a text (cyrb53's mixing, two seeds) as four 32-bit words: to tell many texts
 * apart in memory without keeping them (two texts with one digest would be taken for one; at a
 * million texts the odds are far below one in 10^20). Not a hash for secrets.
 */
export function digest128(text: string): [number, number, number, number] {
  const [a, b] = cyrb64(text, 0);
  const [c, d] = cyrb64(text, 0x9e3779b9);
  return [a, b, c, d];
}

/** cyrb53's two 32-bit halves of text's hash (seeded): fast, not cryptographic. */
export function cyrb64(text: string, seed = 0): [number, number] {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

/** cyrb53: a fast 53-bit hash of a text, for keys of a NumberTable (not cryptographic, not for names on disk). */
export function hash53(text: string): number {
  const [h1, h2] = cyrb64(text);
  return 4294967296 * (2097151 & h2) + h1;
}
