// What the quota plan holds of the names it reads ahead, in bounded memory: the first few in an array,
// the rest in a temporary file (0600 in a private folder, removed when replayed or at exit), and a
// table of 53-bit hashes to count distinct names (two names with one hash, about one in 10^10 at
// 100,000 names, would count once: the plan could say one request too few), outside V8's heap.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash53 } from '../state/ids.js';
import { NumberTable } from '../state/number-table.js';

/** Names kept in memory before the rest go to the file. */
const IN_MEMORY = 2048;
/** Characters of names gathered before one write to the file (a write a name was a system call a name). */
const WRITE_CHUNK = 64 * 1024;
/**
 * The hash table's first slots: room for 16,384 names (384 KB) before it grows. Grown from its default
 * 1,024 it was rebuilt five times in the first 10,000 names (~16,000 moves), in code not yet optimized,
 * on the way to a batch's first request.
 */
const FIRST_SLOTS = 32_768;

export class NameSpill {
  readonly #head: string[] = [];
  #hashes = new NumberTable(FIRST_SLOTS);
  #file: { dir: string; fd: number; count: number; unwritten: string } | undefined;

  constructor(readonly inMemory = IN_MEMORY) {}

  get size(): number {
    return this.#head.length + (this.#file?.count ?? 0);
  }

  /** Keeps a name (one line of input: no newline in it); true when it is the first of its kind. */
  push(name: string): boolean {
    const place = this.size;
    if (this.#head.length < this.inMemory) this.#head.push(name);
    else {
      this.#file ??= openSpill();
      this.#file.unwritten += `${name}\n`;
      this.#file.count++;
      if (this.#file.unwritten.length >= WRITE_CHUNK) writeOut(this.#file);
    }
    return this.#hashes.add(hash53(name), place);
  }

  /** The place of the first name pushed with this one's hash (until the replay). */
  firstPlace(name: string): number | undefined {
    return this.#hashes.get(hash53(name));
  }

  /**
   * The names in the order pushed, once, in chunks: those in memory, then the file's a block at a time.
   * Read synchronously: the file is rep's own, a small local one, and a chunk is taken whole.
   */
  *replay(): Generator<readonly string[]> {
    this.#hashes = new NumberTable(0);
    const head = this.#head.splice(0);
    if (head.length > 0) yield head;
    const file = this.#file;
    if (!file) return;
    try {
      writeOut(file);
      closeFd(file);
      const fd = openSync(join(file.dir, 'names'), 'r');
      try {
        const block = Buffer.allocUnsafe(WRITE_CHUNK);
        // Names are whole lines: a block's bytes after its last newline wait for the next block.
        let rest = Buffer.alloc(0);
        for (let read = readSync(fd, block); read > 0; read = readSync(fd, block)) {
          const bytes = Buffer.concat([rest, block.subarray(0, read)]);
          const end = bytes.lastIndexOf(0x0a) + 1;
          rest = bytes.subarray(end);
          if (end > 0) yield bytes.toString('utf8', 0, end - 1).split('\n');
        }
      } finally {
        closeSync(fd);
      }
    } finally {
      this.discard();
    }
  }

  /** Removes the file, if any (also for a run that ends before the replay). */
  discard(): void {
    const file = this.#file;
    this.#file = undefined;
    if (!file) return;
    closeFd(file);
    rmSync(file.dir, { recursive: true, force: true });
  }
}

/** Closes the file's descriptor once: closing a number twice could close another file that reused it. */
function closeFd(file: { fd: number }): void {
  if (file.fd < 0) return;
  const { fd } = file;
  file.fd = -1;
  closeSync(fd);
}

function openSpill(): { dir: string; fd: number; count: number; unwritten: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rep-plan-'));
  return { dir, fd: openSync(join(dir, 'names'), 'wx', 0o600), count: 0, unwritten: '' };
}

/** Writes the names gathered so far to the file. */
function writeOut(file: { fd: number; unwritten: string }): void {
  if (file.unwritten === '') return;
  writeSync(file.fd, file.unwritten);
  file.unwritten = '';
}
