// The batch's dedupe: a duplicate name is sent once. While the first request is in flight later
// duplicates wait on it; once answered they reuse its outcome, kept by name as one compact string.
// The latest few outcomes stay in memory; older ones go to a temporary file (0600 in a private folder,
// removed by discard(); where TMPDIR cannot take them, they stay in memory: temp-files.ts) with only
// their place kept, by a 30-bit hash of the name (in a NumberTable, outside V8's heap): memory stays
// flat however many distinct names a batch has, and a far duplicate is still never sent again (the
// answer cache cannot stand in: --max-age 0, no-store answers, errors, and another process's newer answer).
import { readSync } from 'node:fs';
import { ExitCode, type ExitCodeValue } from '../errors.js';
import { parseJson, serializeJson } from '../text.js';
import { hash53 } from '../state/ids.js';
import { NumberTable } from '../state/number-table.js';
import { NOT_AUDITED, type Outcome } from './outcome.js';
import { appendTemp, makeTempFile, removeTemp } from './temp-files.js';

/** Outcomes kept in memory (the latest settled) before older ones go to the file. */
const IN_MEMORY = 1024;
/** Bytes gathered before one write to the file. */
const WRITE_CHUNK = 64 * 1024;
/** JSON text never starts with `!`, so an error can share the string form. */
const ERROR_MARK = '!';

export interface DedupeOptions {
  /** Outcomes kept in memory before older ones go to the file. */
  inMemory?: number;
  /** Told of a file that could not be made or written (once: from then on every outcome stays in memory). */
  onTrouble?: (error: unknown) => void;
}

export class Dedupe<Waiter> {
  readonly #pending = new Map<string, Waiter[]>();
  /** The latest outcomes, oldest first (a Map keeps insertion order). */
  readonly #recent = new Map<string, string>();
  /** The most kept in memory: unbounded once the file failed. */
  #inMemory: number;
  readonly #onTrouble: (error: unknown) => void;
  #file: OutcomeFile | undefined;

  constructor({ inMemory = IN_MEMORY, onTrouble = () => undefined }: DedupeOptions = {}) {
    this.#inMemory = Math.max(0, inMemory);
    this.#onTrouble = onTrouble;
  }

  get(name: string): Outcome | 'pending' | undefined {
    if (this.#pending.has(name)) return 'pending';
    const kept = this.#recent.get(name) ?? this.#file?.get(name);
    return kept === undefined ? undefined : decode(kept);
  }

  /** Marks a name as in flight. */
  start(name: string): void {
    this.#pending.set(name, []);
  }

  /** A duplicate of a name in flight: answered when the first one is. */
  wait(name: string, waiter: Waiter): void {
    this.#pending.get(name)?.push(waiter);
  }

  /**
   * Keeps the answer and returns the duplicates that were waiting for it. `again: false` (the batch's
   * plan read the whole input, and it has the name once) keeps nothing: no later name asks for it.
   */
  settle(name: string, outcome: Outcome, { again = true }: { again?: boolean } = {}): Waiter[] {
    const waiting = this.#pending.get(name) ?? [];
    this.#pending.delete(name);
    if (!again && waiting.length === 0) return waiting;
    this.#recent.set(name, encode(outcome));
    while (this.#recent.size > this.#inMemory) {
      const [oldest, kept] = this.#recent.entries().next().value as [string, string];
      try {
        this.#file ??= new OutcomeFile();
        this.#file.put(oldest, kept);
      } catch (error) {
        // The file's unwritten outcomes stay readable in it; this one and every later one stay here.
        this.#inMemory = Number.POSITIVE_INFINITY;
        this.#onTrouble(error);
        break;
      }
      this.#recent.delete(oldest);
    }
    return waiting;
  }

  /** Removes the file, if any: the batch is over (or the process exits). */
  discard(): void {
    this.#file?.discard();
    this.#file = undefined;
  }
}

/** Outcomes by name in a temporary file: in memory only where each one is, and the latest not written yet. */
class OutcomeFile {
  readonly #temp = makeTempFile('rep-dedupe-', 'outcomes');
  /** Entry number by the name's hash; a name whose hash another name took first is kept by name. */
  readonly #byHash = new NumberTable();
  readonly #collided = new Map<string, number>();
  #offsets = new Float64Array(1024);
  #lengths = new Int32Array(1024);
  #count = 0;
  /** Records gathered for the next write (read from here until then), the first one's entry number, and their bytes. */
  #buffered: string[] = [];
  #bufferedFrom = 0;
  #bufferedBytes = 0;

  /** Keeps an outcome. Throws when a write fails: the outcome is kept all the same, and so are the others. */
  put(name: string, kept: string): void {
    const record = serializeJson([name, kept]);
    const bytes = Buffer.byteLength(record);
    if (this.#count === this.#offsets.length) this.#grow();
    this.#offsets[this.#count] = this.#temp.written + this.#bufferedBytes;
    this.#lengths[this.#count] = bytes;
    if (!this.#byHash.add(hash30(name), this.#count)) this.#collided.set(name, this.#count);
    this.#count += 1;
    this.#buffered.push(record);
    this.#bufferedBytes += bytes;
    if (this.#bufferedBytes >= WRITE_CHUNK) this.#flush();
  }

  get(name: string): string | undefined {
    const entry = this.#collided.get(name) ?? this.#byHash.get(hash30(name));
    if (entry === undefined) return undefined;
    let text: string;
    if (entry >= this.#bufferedFrom) text = this.#buffered[entry - this.#bufferedFrom] as string;
    else {
      const bytes = Buffer.allocUnsafe(this.#lengths[entry] as number);
      readSync(this.#temp.fd, bytes, 0, bytes.length, this.#offsets[entry] as number);
      text = bytes.toString('utf8');
    }
    const record = parseJson(text) as [string, string];
    return record[0] === name ? record[1] : undefined; // another name with the same hash: this one was never kept
  }

  discard(): void {
    removeTemp(this.#temp);
  }

  /** Writes the gathered records; if that fails, they stay gathered (and readable) and it throws. */
  #flush(): void {
    appendTemp(this.#temp, Buffer.from(this.#buffered.join('')));
    this.#bufferedFrom = this.#count;
    this.#buffered = [];
    this.#bufferedBytes = 0;
  }

  #grow(): void {
    const offsets = new Float64Array(this.#offsets.length * 2);
    offsets.set(this.#offsets);
    this.#offsets = offsets;
    const lengths = new Int32Array(this.#lengths.length * 2);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
  }
}

/** 30 bits of the name's hash: a small integer on every platform. */
function hash30(name: string): number {
  return hash53(name) % 0x40000000;
}

function encode(outcome: Outcome): string {
  if ('text' in outcome) return outcome.text;
  return outcome.notAudited ? ERROR_MARK : `${ERROR_MARK}${outcome.error.exit} ${outcome.error.message}`;
}

function decode(kept: string): Outcome {
  if (!kept.startsWith(ERROR_MARK)) return { text: kept };
  if (kept === ERROR_MARK) return NOT_AUDITED;
  const space = kept.indexOf(' ');
  const exit = Number(kept.slice(1, space)) as ExitCodeValue;
  return { error: { exit: Number.isInteger(exit) ? exit : ExitCode.error, message: kept.slice(space + 1) } };
}
