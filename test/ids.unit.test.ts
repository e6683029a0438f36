// The hashes and random ids of rep's local files (src/state/ids.ts), checked against node:crypto: the
// cache's entry names and the key's fingerprint must stay what they were when rep hashed with it.
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { checksum, digest128, randomHex, sha256Hex } from '../src/state/ids.js';

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it('is the SHA-256 of the UTF-8 bytes, like node:crypto', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // Padding boundaries (55, 56, 63, 64, 65 bytes), multi-byte text, a lone surrogate and a long input.
    const texts = ['a'.repeat(55), 'a'.repeat(56), 'a'.repeat(63), 'a'.repeat(64), 'a'.repeat(65), 'Кофейня Ромашка', '🇷🇺 café', '\ud800', 'x'.repeat(100_000)];
    for (const text of texts) expect(sha256Hex(text), JSON.stringify(text.slice(0, 20))).toBe(nodeSha256(text));
  });

  it('agrees with node:crypto on random texts of every length up to 300', () => {
    for (let length = 0; length <= 300; length++) {
      const text = Array.from({ length }, () => String.fromCodePoint(Math.floor(Math.random() * 0x2000))).join('');
      expect(sha256Hex(text)).toBe(nodeSha256(text));
    }
  });
});

describe('sha256Hex past HASHES_BEFORE_NATIVE (node:crypto)', () => {
  it('gives the digests it gave in JavaScript once a batch has made it switch to Node’s own SHA-256', async () => {
    vi.resetModules();
    const fresh = await import('../src/state/ids.js'); // no hash made yet in this module
    const texts = ['', 'abc', 'a'.repeat(64), 'Кофейня Ромашка', '🇷🇺 café', '\ud800', 'x'.repeat(100_000)];
    const inJs = texts.map(fresh.sha256Hex);
    for (let i = texts.length; i <= fresh.HASHES_BEFORE_NATIVE; i++) fresh.sha256Hex(`http://127.0.0.1/api\nbench company ${i}`);
    const native = texts.map(fresh.sha256Hex);
    expect(native).toEqual(inJs);
    expect(native).toEqual(texts.map(nodeSha256));
  });
});

describe('checksum', () => {
  it('is FNV-1a (32 bits) in 8 hex digits', () => {
    // The published FNV-1a test vectors (ASCII, where a code unit is a byte).
    expect(checksum('')).toBe('811c9dc5');
    expect(checksum('a')).toBe('e40c292c');
    expect(checksum('foobar')).toBe('bf9cf968');
  });

  it('changes with any one character of a text changed, cut off or added', () => {
    const text = '{"company":{"name":"Кофейня Ромашка"},"score":71.5}';
    const variants = new Set([text, text.slice(0, -1), `${text} `, text.replace('71.5', '71.6'), text.replace('Р', 'Π'), `\ufffd${text.slice(1)}`]);
    expect(new Set([...variants].map(checksum)).size).toBe(variants.size);
  });
});

describe('randomHex', () => {
  it('gives two lower-case hex characters a byte, different each time', () => {
    const ids = Array.from({ length: 1000 }, () => randomHex(8));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(1000);
    expect(randomHex(4)).toMatch(/^[0-9a-f]{8}$/);
    expect(randomHex(0)).toBe('');
  });

  it('uses every hex digit in both places of a byte', () => {
    const seen = [new Set<string>(), new Set<string>()];
    for (let i = 0; i < 2000; i++) {
      const byte = randomHex(1);
      seen[0]!.add(byte[0]!);
      seen[1]!.add(byte[1]!);
    }
    expect([seen[0]!.size, seen[1]!.size]).toEqual([16, 16]);
  });
});

describe('digest128', () => {
  const key = (text: string) => digest128(text).join(' ');
  it('is four 32-bit words, the same for the same text, and tells 100,000 index-like lines apart', () => {
    const words = digest128('{"base":"b","series":"s","query":"q"}');
    expect(words.every((word) => Number.isInteger(word) && word >= 0 && word < 2 ** 32)).toBe(true);
    expect(key('Café')).toBe(key('Café'));
    const lines = Array.from({ length: 100_000 }, (_, index) => `{"base":"https://api.example.test/api","query":"Bench Company ${index}"}`);
    expect(new Set(lines.map(key)).size).toBe(lines.length);
    expect(key('ab')).not.toBe(key('ba'));
    expect(key('')).not.toBe(key(' '));
  });
});
