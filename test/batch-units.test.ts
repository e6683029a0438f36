// The batch's pure parts: the dedupe that keeps answers compactly, and the tally behind the summary line and exit code.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Dedupe } from '../src/batch/dedupe.js';
import { hash53 } from '../src/state/ids.js';
import { openNames } from '../src/batch/input.js';
import { BatchError, BatchTally, NOT_AUDITED, type Outcome } from '../src/batch/outcome.js';
import { RateLimitError } from '../src/errors.js';

describe('Dedupe', () => {
  it('gives back what it kept: JSON text, an error, not audited', () => {
    const dedupe = new Dedupe<string>();
    const outcomes: Record<string, Outcome> = {
      a: { text: '{"score":1}' },
      b: { error: { exit: 3, message: 'no company named "b c"' } },
      c: NOT_AUDITED,
    };
    for (const [name, outcome] of Object.entries(outcomes)) {
      dedupe.start(name);
      expect(dedupe.get(name)).toBe('pending');
      dedupe.wait(name, `${name}-dup`);
      expect(dedupe.settle(name, outcome)).toEqual([`${name}-dup`]);
      expect(dedupe.get(name)).toEqual(outcome);
    }
  });

  it('keeps nothing of a name the batch will not meet again: no memory, no file', () => {
    const saved = process.env.TMPDIR;
    const root = mkdtempSync(join(tmpdir(), 'dedupe-test-'));
    process.env.TMPDIR = root;
    try {
      const dedupe = new Dedupe<string>({ inMemory: 0 });
      for (const name of ['once', 'twice']) dedupe.start(name);
      dedupe.wait('twice', 'twice-dup');
      expect(dedupe.settle('once', { text: '{"score":1}' }, { again: false })).toEqual([]);
      expect(dedupe.settle('twice', { text: '{"score":2}' })).toEqual(['twice-dup']);
      expect([dedupe.get('once'), dedupe.get('twice')]).toEqual([undefined, { text: '{"score":2}' }]);
      dedupe.start('alone');
      dedupe.settle('alone', NOT_AUDITED, { again: false });
      expect(dedupe.get('alone')).toBeUndefined();
      expect(dedupeDirs()).toHaveLength(1); // the one of 'twice', past the 0 kept in memory
      dedupe.discard();
      const fresh = new Dedupe<string>({ inMemory: 0 });
      fresh.start('once');
      fresh.settle('once', { text: '{}' }, { again: false });
      expect(dedupeDirs()).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps every answer however many names: older ones in a file it removes, read back by name', () => {
    // A temp folder of this test's own: batches of other test files make theirs in the shared one meanwhile.
    const saved = process.env.TMPDIR;
    const root = mkdtempSync(join(tmpdir(), 'dedupe-test-'));
    process.env.TMPDIR = root;
    try {
      expect(dedupeDirs()).toEqual([]);
      keepsEveryAnswer();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(root, { recursive: true, force: true });
    }
  });

  const keepsEveryAnswer = () => {
    const before = new Set(dedupeDirs());
    const dedupe = new Dedupe<string>({ inMemory: 2 });
    const outcomeOf = (index: number): Outcome =>
      index % 5 === 4
        ? { error: { exit: 3, message: `no company named "n${index}"` } }
        : { text: `{"name":"Café ${index}","pad":"${'x'.repeat(index % 700)}"}` };
    const names = Array.from({ length: 3000 }, (_, index) => `Café ${index}`);
    for (const [index, name] of names.entries()) {
      dedupe.start(name);
      dedupe.settle(name, outcomeOf(index));
    }
    expect(dedupeDirs().filter((dir) => !before.has(dir))).toHaveLength(1);
    for (const [index, name] of names.entries()) expect(dedupe.get(name)).toEqual(outcomeOf(index));
    expect(dedupe.get('Café 3000')).toBeUndefined();
    dedupe.discard();
    expect(dedupeDirs().filter((dir) => !before.has(dir))).toEqual([]);
  };

  it('a name whose hash another name took is still told apart', () => {
    const dedupe = new Dedupe<string>({ inMemory: 0 });
    // Two names with one 30-bit hash, found by search: each keeps its own answer, and a third is unknown.
    const [first, second] = collidingNames();
    for (const name of [first, second]) {
      dedupe.start(name);
      dedupe.settle(name, { text: JSON.stringify(name) });
    }
    expect([dedupe.get(first), dedupe.get(second)]).toEqual([{ text: JSON.stringify(first) }, { text: JSON.stringify(second) }]);
    dedupe.discard();
  });
});

const dedupeDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('rep-dedupe-'));

/** Two distinct names whose hash53 agree in their low 30 bits. */
function collidingNames(): [string, string] {
  const seen = new Map<number, string>();
  for (let index = 0; ; index++) {
    const name = `n${index}`;
    const hash = hash53(name) % 0x40000000;
    const other = seen.get(hash);
    if (other !== undefined) return [other, name];
    seen.set(hash, name);
  }
}

describe('BatchTally and BatchError', () => {
  it('counts kinds, and the first failure in input order sets the exit code', () => {
    const tally = new BatchTally();
    const outcomes: Outcome[] = [{ text: '{}' }, { error: { exit: 6, message: 'refused' } }, { error: { exit: 3, message: 'nope' } }];
    for (const outcome of outcomes) tally.count(outcome);
    expect(tally.summaryLine()).toBe('3 names: 1 audited, 1 not found, 1 failed');
    const error = BatchError.from(tally, undefined);
    expect([error?.exitCode, error?.message]).toEqual([6, '2 of 3 names not audited: 1 not found, 1 failed']);
  });

  it('a rate limit wins with exit 5 and reuses the limit message', () => {
    const tally = new BatchTally();
    for (const outcome of [{ error: { exit: 3, message: 'nope' } }, NOT_AUDITED, NOT_AUDITED] as Outcome[]) tally.count(outcome);
    const limit = new RateLimitError('rate limit reached: 100 requests per hour; resets in 14 min (at 18:42)', { hint: 'use --wait' });
    const error = BatchError.from(tally, limit);
    const message = 'rate limit reached: 3 of 3 names not audited (1 not found, 2 rate limited); 100 requests per hour; resets in 14 min (at 18:42)';
    expect([error?.exitCode, error?.message, error?.hint]).toEqual([5, message, 'use --wait']);
  });

  it('no failures, no error', () => {
    const tally = new BatchTally();
    tally.count({ text: '{}' });
    expect(BatchError.from(tally, undefined)).toBeUndefined();
  });
});

describe('openNames', () => {
  it('streams names from arguments and stdin in their order: trimmed, blanks and comments skipped', async () => {
    const stdin = Readable.from(['\uFEFFone\r\n', '  # note\n\n two \n', 'three']);
    const names: string[] = [];
    for await (const chunk of await openNames({ args: ['zero', 'half', '-', 'four'], stdin, stdinIsTTY: false })) names.push(...chunk);
    expect(names).toEqual(['zero', 'half', 'one', 'two', 'three', 'four']);
  });

  it('counts lines and line bytes across chunks, CR LF and a character split between two alike', async () => {
    const read = async (chunks: Buffer[]) => {
      const names: string[] = [];
      try {
        for await (const chunk of await openNames({ args: ['-'], stdin: Readable.from(chunks), stdinIsTTY: false })) names.push(...chunk);
      } catch (error) {
        return (error as Error).message;
      }
      return names;
    };
    const e = Buffer.from('\u00e9'); // two bytes in UTF-8
    expect(await read([Buffer.from('a\r\nb\n'), Buffer.from('c\nd\u0000e\n')])).toBe(
      'cannot read stdin: line 4 holds a NUL byte: it is binary data, not names',
    );
    // Line 2 over two chunks, an é split between them: 2,047 é and `xxx` are 4,097 bytes, one too many; with `xx`, a name.
    const line2 = (end: string) => [
      Buffer.concat([Buffer.from('n\n'), ...Array(1000).fill(e), e.subarray(0, 1)]),
      Buffer.concat([e.subarray(1), ...Array(1046).fill(e), Buffer.from(end)]),
    ];
    expect(await read(line2('xxx\n'))).toBe('cannot read stdin: line 2 is longer than 4096 bytes');
    expect(await read(line2('xx\nz'))).toEqual(['n', `${'\u00e9'.repeat(2047)}xx`, 'z']);
  });

  it('leaves stdin alone when no source is stdin: making it costs a batch of a file its start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rep-names-'));
    try {
      const file = join(dir, 'names');
      writeFileSync(file, 'one\ntwo\n');
      const touched: string[] = [];
      const input = {
        args: ['zero'],
        file,
        get stdin(): Readable {
          touched.push('stdin');
          return Readable.from([]);
        },
        get stdinIsTTY() {
          touched.push('stdinIsTTY');
          return false;
        },
      };
      const names: string[] = [];
      for await (const chunk of await openNames(input)) names.push(...chunk);
      expect(names).toEqual(['zero', 'one', 'two']);
      expect(touched).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
