// What the quota plan holds of the names it reads ahead, in bounded memory: the first few in an array,
// the rest in a temporary file (0600 in a private folder, removed when replayed or at exit; in memory
// where TMPDIR cannot take them: temp-files.ts), and a table of 53-bit hashes to count distinct names
// (two names with one hash, about one in 10^10 at 100,000 names, would count once: the plan could say
// one request too few), outside V8's heap.
import { readSync } from 'node:fs';
import { hash53 } from '../state/ids.js';
import { NumberTable } from '../state/number-table.js';
import { appendTemp, makeTempFile, removeTemp, type TempFile } from './temp-files.js';

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
  /** The file, its names not written yet, and how many names it holds (written or not). */
  #file: { temp: TempFile; unwritten: string; count: number } | undefined;
  /** Names after the file could not be made or written: kept in memory, after the file's in order. */
  #tail: string[] | undefined;

  /** `onTrouble` is told of a file that could not be made or written (once: later names go to memory). */
  constructor(
    readonly inMemory = IN_MEMORY,
    readonly onTrouble: (error: unknown) => void = () => undefined,
  ) {}

  get size(): number {
    return this.#head.length + (this.#file?.count ?? 0) + (this.#tail?.length ?? 0);
  }

  /** Keeps a name (one line of input: no newline in it); true when it is the first of its kind. */
  push(name: string): boolean {
    const place = this.size;
    if (this.#head.length < this.inMemory) this.#head.push(name);
    else if (!this.#toFile(name)) this.#tail!.push(name);
    return this.#hashes.add(hash53(name), place);
  }

  /** Gathers the name for the file, made at its first; false once the file could not be made or written. */
  #toFile(name: string): boolean {
    if (this.#tail) return false;
    try {
      this.#file ??= { temp: makeTempFile('rep-plan-', 'names'), unwritten: '', count: 0 };
    } catch (error) {
      this.#fail(error);
      return false;
    }
    this.#file.unwritten += `${name}\n`;
    this.#file.count++;
    if (this.#file.unwritten.length >= WRITE_CHUNK) this.#writeOut();
    return true;
  }

  /** The place of the first name pushed with this one's hash (until the replay). */
  firstPlace(name: string): number | undefined {
    return this.#hashes.get(hash53(name));
  }

  /**
   * The names in the order pushed, once, in chunks: those in memory, then the file's a block at a time,
   * then any the file could not take. Read synchronously: the file is rep's own, a small local one, and
   * a chunk is taken whole.
   */
  *replay(): Generator<readonly string[]> {
    this.#hashes = new NumberTable(0);
    const head = this.#head.splice(0);
    if (head.length > 0) yield head;
    try {
      if (this.#file) {
        this.#writeOut();
        yield* readNames(this.#file.temp);
      }
      const tail = this.#tail?.splice(0) ?? [];
      if (tail.length > 0) yield tail;
    } finally {
      this.discard();
    }
  }

  /** Removes the file, if any (also for a run that ends before the replay). */
  discard(): void {
    const file = this.#file;
    this.#file = undefined;
    if (file) removeTemp(file.temp);
  }

  /** Writes the names gathered so far to the file; those it cannot take stay in memory. */
  #writeOut(): void {
    const file = this.#file!;
    if (file.unwritten === '') return;
    try {
      appendTemp(file.temp, Buffer.from(file.unwritten));
      file.unwritten = '';
    } catch (error) {
      this.#fail(error);
    }
  }

  /** The file cannot take more: its unwritten names and every later one are kept in memory. */
  #fail(error: unknown): void {
    const unwritten = this.#file?.unwritten.split('\n').slice(0, -1) ?? [];
    if (this.#file) {
      this.#file.count -= unwritten.length;
      this.#file.unwritten = '';
    }
    this.#tail = unwritten;
    this.onTrouble(error);
  }
}

/** The names of the file's whole part, a block at a time (names are whole lines: a block's bytes after its last newline wait for the next). */
function* readNames(temp: TempFile): Generator<readonly string[]> {
  const block = Buffer.allocUnsafe(WRITE_CHUNK);
  let rest = Buffer.alloc(0);
  for (let at = 0; at < temp.written; ) {
    const read = readSync(temp.fd, block, 0, Math.min(block.length, temp.written - at), at);
    if (read === 0) break;
    at += read;
    const bytes = Buffer.concat([rest, block.subarray(0, read)]);
    const end = bytes.lastIndexOf(0x0a) + 1;
    rest = bytes.subarray(end);
    if (end > 0) yield bytes.toString('utf8', 0, end - 1).split('\n');
  }
}
