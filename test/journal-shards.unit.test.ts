// The sharded journal both journals are (src/state/journal-shards.ts), on its own rules: a key's shard,
// the shards there are, the folder's check, and the reader (each shard read once, then its tail; one
// replaced read again from its start; whole lines only; a rewrite's aside read with it; no link, no
// FIFO, no shard others can write) and the writers (one write a shard a call, or a turn).
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkJournalDir,
  ensureJournalDir,
  type JournalShards,
  openShardReader,
  openShardWriters,
  type ShardLines,
  shardFiles,
  shardPath,
} from '../src/state/journal-shards.js';

/** Lines `KEY text` with a 4-hex key, as the journals' (with their longer keys) are. */
const LINES: ShardLines = { keyLength: 4, keyAt: (bytes, start, end) => (end - start > 5 && bytes[start + 4] === 32 ? start : -1) };

let root: string;
let journal: JournalShards;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rep-journal-shards-'));
  journal = { dir: join(root, 'journal'), extension: '.log', asideDir: join(root, 'journal', 'aside'), maxBytes: 1024 * 1024 };
  mkdirSync(journal.dir, { mode: 0o700 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const shardOf = (key: string) => shardPath(journal, key);

describe('shards', () => {
  it('a key goes to the shard its first two hex digits pick, of 64; only such files are shards', () => {
    expect(shardOf('00ab')).toBe(join(journal.dir, '00.log'));
    expect(shardOf('3fab')).toBe(join(journal.dir, '3f.log'));
    expect(shardOf('41ab')).toBe(join(journal.dir, '01.log')); // 0x41 % 64
    expect(shardOf('ffab')).toBe(join(journal.dir, '3f.log'));
    for (const name of ['00.log', '3f.log', '0g.log', '000.log', '00.jsonl', '00.log.tmp']) writeFileSync(join(journal.dir, name), '');
    expect(shardFiles(journal).sort()).toEqual([join(journal.dir, '00.log'), join(journal.dir, '3f.log')]);
    expect(shardFiles({ ...journal, dir: join(root, 'none') })).toEqual([]);
  });

  it('the folder: made 0700; a link, a file or one others can write in its place refused in one wording', () => {
    const dir = join(root, 'made');
    expect(checkJournalDir(dir)).toBe(false);
    ensureJournalDir(dir);
    expect(checkJournalDir(dir)).toBe(true);
    const link = join(root, 'link');
    symlinkSync(dir, link);
    expect(() => ensureJournalDir(link)).toThrow(/^the journal .*link is a link: it is not followed$/);
    const file = join(root, 'file');
    writeFileSync(file, '');
    expect(() => checkJournalDir(file)).toThrow(/^the journal .*file is not a folder$/);
    chmodSync(dir, 0o777);
    expect(() => ensureJournalDir(dir)).toThrow(/^the journal .*made is writable by other users \(mode 777\)$/);
  });
});

describe('the reader', () => {
  it('reads a shard once, then only its tail; a key’s lines, each whole', () => {
    const reads: number[] = [];
    const reader = openShardReader(journal, LINES, (_path, bytes) => reads.push(bytes));
    writeFileSync(shardOf('00aa'), '00aa one\n00bb two\n00aa three\n');
    expect(reader.linesOf(['00aa', '00bb', '00cc'])).toEqual(['00aa one\n00aa three\n', '00bb two\n', '']);
    appendFileSync(shardOf('00aa'), '00bb four\n');
    reads.length = 0;
    expect(reader.linesOf(['00bb'])).toEqual(['00bb two\n00bb four\n']);
    expect(reads[0]).toBe('00bb four\n'.length); // the tail scanned, not the shard
  });

  it('a last line without its line end is read once it has one', () => {
    const reader = openShardReader(journal, LINES);
    writeFileSync(shardOf('00aa'), '00aa one\n00aa tw');
    expect(reader.linesOf(['00aa'])).toEqual(['00aa one\n']);
    appendFileSync(shardOf('00aa'), 'o\n');
    expect(reader.linesOf(['00aa'])).toEqual(['00aa one\n00aa two\n']);
  });

  it('a shard replaced between reads is read again from its start, even when it is larger', () => {
    const reader = openShardReader(journal, LINES);
    writeFileSync(shardOf('00aa'), '00aa one\n');
    expect(reader.linesOf(['00aa'])).toEqual(['00aa one\n']);
    const other = join(root, 'other');
    writeFileSync(other, '00bb moved in\n00aa new one\n', { mode: 0o600 });
    renameSync(other, shardOf('00aa'));
    expect(reader.linesOf(['00aa', '00bb'])).toEqual(['00aa new one\n', '00bb moved in\n']);
    rmSync(shardOf('00aa'));
    expect(reader.linesOf(['00aa'])).toEqual(['']);
  });

  it('reads the aside of a rewrite under way, first, and only its whole lines of the key', () => {
    const reader = openShardReader(journal, LINES);
    const shard = shardOf('00aa');
    writeFileSync(shard, '00aa new\n', { mode: 0o600 });
    mkdirSync(journal.asideDir, { mode: 0o700 });
    const aside = join(journal.asideDir, '00.fold.abcd.log');
    writeFileSync(aside, '00aa old\n00bb other\n00aa torn', { mode: 0o600 });
    expect(reader.linesOf(['00aa'])).toEqual(['00aa old\n00aa new\n']);
    rmSync(aside);
    expect(reader.linesOf(['00aa'])).toEqual(['00aa new\n']);
  });

  it('a link, a FIFO or a file others can write in a shard’s place is refused', () => {
    const reader = openShardReader(journal, LINES);
    const target = join(root, 'target');
    writeFileSync(target, '00aa mine\n', { mode: 0o600 });
    symlinkSync(target, shardOf('00aa'));
    expect(() => reader.linesOf(['00aa'])).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    rmSync(shardOf('00aa'));
    linkSync(target, shardOf('00aa')); // a hard link is the file itself: read
    expect(reader.linesOf(['00aa'])).toEqual(['00aa mine\n']);
    chmodSync(target, 0o620);
    expect(() => reader.linesOf(['00aa'])).toThrow(/00\.log is writable by other users \(mode 620\)$/);
    rmSync(shardOf('00aa'));
    execFileSync('mkfifo', [shardOf('00aa')]); // opened without waiting for a writer, then refused
    expect(() => reader.linesOf(['00aa'])).toThrow(/00\.log is not a regular file$/);
  });
});

describe('the writers', () => {
  it('append now or with the others of the turn, one write a shard; the folder made again when it went', async () => {
    let remade = 0;
    const writers = openShardWriters(() => {
      remade += 1;
      ensureJournalDir(journal.dir);
    });
    try {
      expect(writers.append(shardOf('00aa'), '00aa one\n')).toBe(9);
      const sizes = await Promise.all([writers.appendThisTurn(shardOf('00aa'), '00aa two\n'), writers.appendThisTurn(shardOf('00bb'), '00bb three\n')]);
      expect(sizes).toEqual([30, 30]); // one write for the shard's turn, a line end first: both hear its size after
      rmSync(journal.dir, { recursive: true });
      writers.drop(shardOf('00aa'));
      expect(writers.append(shardOf('01aa'), '01aa four\n')).toBe(10);
      expect(remade).toBe(1);
      expect(readFileSync(shardOf('01aa'), 'utf8')).toBe('01aa four\n');
    } finally {
      writers.close();
    }
  });
});
