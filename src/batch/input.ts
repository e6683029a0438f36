// Where a batch's names come from: arguments, `--file PATH`, or `-` (stdin), one name a line. Lines are
// read as a stream and handed on a block at a time, so a file of 100,000 names is never held in memory at once.
import type { Readable, Transform } from 'node:stream';
import { UsageError } from '../errors.js';
import { refuseLineBreak } from '../commands/query.js';

// node:fs/promises and node:stream are taken where a batch reads, not imported: `rep audit NAME`
// loads this module only to learn that it is no batch.
export const STDIN = '-';

export interface BatchInput {
  /** Names from the command line, in order; `-` reads stdin at that place. */
  args: readonly string[];
  /** `--file PATH` (or `-`): read after the arguments. */
  file?: string;
  /** Read only where a source is stdin (a getter may stand here: making process.stdin costs a batch of a file its start). */
  stdin: Readable;
  /** Called before reading a terminal's stdin, so the user knows rep is waiting for them. */
  onTerminalStdin?: () => void;
  /** Read only where a source is stdin, as `stdin`. */
  stdinIsTTY: boolean;
  /** Aborted when the batch stops early (closed stdout, Ctrl-C): reading ends, even mid-wait on stdin. */
  stop?: AbortSignal;
}

/** One source of names, opened up front so a missing file fails before any request is sent; arguments in a row are one. */
type Source = { kind: 'names'; names: string[] } | { kind: 'lines'; label: string; stream: Readable; stdin: boolean };

/** Whether the command line asks for a batch rather than one audit. */
export function isBatch(args: readonly string[], file: string | undefined): boolean {
  return file !== undefined || args.length > 1 || args.includes(STDIN);
}

/**
 * The names in input order, in chunks: the names read at once (a block of a file, a line typed at a
 * terminal, the arguments), so a batch takes a file's names a block at a time rather than one await a name.
 */
export type NameChunks = AsyncIterable<readonly string[]>;

/**
 * Opens every source (a missing file or a stdin named twice is a usage error, found before any
 * request) and returns the names in input order: trimmed, blank lines and `#` comments skipped.
 */
export async function openNames(input: BatchInput): Promise<NameChunks> {
  const wanted = [...input.args, ...(input.file === undefined ? [] : [input.file === STDIN ? STDIN : { path: input.file }])];
  if (wanted.filter((item) => item === STDIN).length > 1) {
    throw new UsageError('stdin (-) is given more than once', { hint: 'read names from stdin once: rep audit - < names.txt' });
  }
  const sources: Source[] = [];
  try {
    for (const item of wanted) {
      if (item === STDIN) sources.push({ kind: 'lines', label: 'stdin', stream: input.stdin, stdin: true });
      else if (typeof item !== 'string') sources.push({ kind: 'lines', label: item.path, stream: await openFile(item.path), stdin: false });
      else {
        const last = sources.at(-1);
        if (last?.kind === 'names') last.names.push(argumentName(item));
        else sources.push({ kind: 'names', names: [argumentName(item)] });
      }
    }
  } catch (error) {
    for (const source of sources) if (source.kind === 'lines' && !source.stdin) source.stream.destroy();
    throw error;
  }
  return namesOf(sources, input);
}

function argumentName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new UsageError('a company name is empty', { hint: 'give non-empty names, e.g. rep audit "Blue Bottle Coffee" "Ritual Coffee"' });
  return refuseLineBreak(name, 'company name');
}

async function openFile(path: string): Promise<Readable> {
  try {
    const handle = await process.getBuiltinModule('node:fs/promises').open(path, 'r');
    return handle.createReadStream(); // bytes: nameText decodes them, refusing what is not UTF-8
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${reason(error)}`, { hint: 'give a readable file with one company name a line, or - for stdin' });
  }
}

async function* namesOf(sources: Source[], input: BatchInput): AsyncGenerator<readonly string[]> {
  try {
    for (const source of sources) {
      if (source.kind === 'names') {
        yield source.names;
        continue;
      }
      if (source.stdin && input.stdinIsTTY) input.onTerminalStdin?.();
      yield* chunksOf(source.stream, source.label, input.stop);
    }
  } finally {
    // A batch stopped early (closed stdout) may leave files open that were never read: close them.
    for (const source of sources) if (source.kind === 'lines' && !source.stdin) source.stream.destroy();
  }
}

async function* chunksOf(stream: Readable, label: string, stop: AbortSignal | undefined): AsyncGenerator<readonly string[]> {
  const names = nameChunks(label);
  stream.on('error', (error) => names.destroy(error));
  // The chunks are read as the batch asks for them: the pipe pauses the stream while they wait.
  stream.pipe(names);
  const close = () => {
    // Ends the iteration below (even mid-wait on a terminal), and lets go of stdin so rep can exit.
    stream.unpipe(names);
    stream.pause();
    names.destroy();
  };
  stop?.addEventListener('abort', close, { once: true });
  if (stop?.aborted) close();
  try {
    for await (const chunk of names) yield chunk as string[];
  } catch (error) {
    if (stop?.aborted && (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return; // stopped: the names end here
    throw error instanceof UsageError ? error : new UsageError(`cannot read ${label}: ${reason(error)}`);
  } finally {
    stop?.removeEventListener('abort', close);
    close();
  }
}

/** The longest line read as a name: names are far shorter, and a file may hold no line break at all (`/dev/zero`). */
export const MAX_NAME_LINE_BYTES = 4096;

/**
 * Names' bytes as chunks of names (each line trimmed, which also drops a byte-order mark; blank lines
 * and `#` comments skipped), as UTF-8 text refused rather than misread: a byte that is no UTF-8 (a file saved in a
 * legacy code page, UTF-16) would be U+FFFD, a NUL byte is binary data, and a line of more than
 * MAX_NAME_LINE_BYTES is no name (held whole, it could grow up to a crash).
 */
function nameChunks(label: string): Transform {
  const { Transform } = process.getBuiltinModule('node:stream');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let lineBytes = 0;
  /** The text of the line not ended yet. */
  let partial = '';
  const refuse = (message: string, hint: string) => new UsageError(`cannot read ${label}: ${message}`, { hint });
  const notUtf8 = () => refuse('it is not UTF-8 text', 'save it as UTF-8, e.g. iconv -f WINDOWS-1251 -t UTF-8, one company name a line');
  /** The lines of the text read so far and `decoded`: the last one is not ended yet (unless the input is). */
  const linesWith = (decoded: string): string[] => (partial + decoded).split(LINE_BREAK);
  /** The names of `lines`, the last one kept for the next chunk (or, `last`, a name too). */
  const namesIn = (lines: string[], last: boolean): string[] => {
    partial = last ? '' : (lines.pop() as string);
    const names: string[] = [];
    for (let index = 0; index < lines.length; index += 1) {
      const name = lines[index]!.trim(); // index < length
      if (name && !name.startsWith('#')) names.push(name);
    }
    return names;
  };
  /** The refusal of `chunk` for a NUL byte or a line past MAX_NAME_LINE_BYTES, a byte at a time, counting lines on. */
  const checkBytes = (chunk: Buffer): UsageError | undefined => {
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index]!;
      if (byte === 0x0a || byte === 0x0d) {
        if (byte === 0x0a) line += 1;
        lineBytes = 0;
      } else if (byte === 0) {
        return refuse(`line ${line} holds a NUL byte: it is binary data, not names`, 'give a text file with one company name a line');
      } else if (++lineBytes > MAX_NAME_LINE_BYTES) {
        return refuse(`line ${line} is longer than ${MAX_NAME_LINE_BYTES} bytes`, 'give a text file with one company name a line');
      }
    }
    return undefined;
  };
  /** Counts `chunk`'s lines on as checkBytes would, for a chunk with nothing to refuse. */
  const countLines = (chunk: Buffer, decoded: string) => {
    for (let at = decoded.indexOf('\n'); at !== -1; at = decoded.indexOf('\n', at + 1)) line += 1;
    const lastBreak = Math.max(chunk.lastIndexOf(0x0a), chunk.lastIndexOf(0x0d));
    lineBytes = lastBreak === -1 ? lineBytes + chunk.length : chunk.length - 1 - lastBreak;
  };
  const push = (names: string[]) => {
    if (names.length > 0) chunks.push(names);
  };
  // The readable side holds one chunk: the batch asks for the next when it has taken this one's names.
  const chunks = new Transform({
    readableObjectMode: true,
    readableHighWaterMark: 1,
    transform(chunk: Buffer, _encoding, done) {
      let decoded: string;
      try {
        decoded = decoder.decode(chunk, { stream: true });
      } catch {
        return done(notUtf8());
      }
      const lines = linesWith(decoded);
      // A byte at a time only where a NUL byte or a long line may be (walking every byte of a file, in code
      // not optimized yet, delayed a batch's first request): memchr rules out the one, the lines' lengths
      // the other (UTF-8 takes at most 3 bytes a UTF-16 unit, and at most 3 more wait in the decoder).
      if (chunk.includes(0) || longestLine(lines) * 3 + 3 > MAX_NAME_LINE_BYTES) {
        const refusal = checkBytes(chunk);
        if (refusal) return done(refusal);
      } else countLines(chunk, decoded);
      push(namesIn(lines, false));
      done();
    },
    flush(done) {
      let rest: string;
      try {
        rest = decoder.decode();
      } catch {
        return done(notUtf8());
      }
      push(namesIn(linesWith(rest), true));
      done();
    },
  });
  return chunks;
}

/** A line ends at LF, CR LF or a lone CR (CR LF's empty line between is blank, so skipped). */
const LINE_BREAK = /\r|\n/;

/** The length of the longest of `lines`, in UTF-16 units. */
function longestLine(lines: readonly string[]): number {
  let longest = 0;
  for (let index = 0; index < lines.length; index += 1) longest = Math.max(longest, lines[index]!.length);
  return longest;
}

function reason(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return code ?? message ?? String(error);
}
