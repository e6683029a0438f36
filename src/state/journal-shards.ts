// A sharded journal (issue 31 point 4): what many small records of a run are appended to, where a file
// a record made a 10,000-name batch create 10,000 files. The local history's journal
// (store/local/journal.ts) and the answer cache's (answer-journal.ts) are each one: a folder journal/
// of SHARDS files, a record going to the shard its key's first two hex digits pick, as one line that
// starts with the key. What is the same for both is here: the shards there are, the folder's check, the
// reader that keeps where each key's lines are, and the writers kept open.
// Each journal keeps its own: its line format, the fold that empties a shard past its bound (by
// append-log.ts's rewrite, which links the old shard aside in asideDir until its tail is copied), and
// what a killed fold's aside gives back.
import { closeSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, exactLstat, fileId, foreignness, LocalFileError, readFrom } from '../local-file.js';
import { type LogPlace, type LogWriter, openLogForReading, openLogWriter, readAsides, readNewLines } from './append-log.js';
import { stageWrite } from './write-turns.js';

/** Shards of a journal: few enough to keep open for a run, enough that a fold moves a small part of it. */
export const SHARDS = 64;

/** Where a journal is and what its shards are called. */
export interface JournalShards {
  /** The journal's folder (its owner's journal/). */
  dir: string;
  /** The shards' file extension, dot included ('.jsonl', '.log'). */
  extension: string;
  /** Where a rewrite of a shard links the old one aside until its tail is copied (append-log.ts). */
  asideDir: string;
  /** The most a shard (or its aside) may hold when read. */
  maxBytes: number;
}

/** The shard a key's records go to (a key starts with two hex digits). */
export function shardPath(journal: JournalShards, key: string): string {
  // Each worked out once a journal, when first asked: a batch asks twice an answer, and a single
  // lookup asks once (all 64 at once cost a cached audit 2-3 ms of cold code on Node 22).
  let paths = shardPaths.get(journal);
  if (!paths) shardPaths.set(journal, (paths = []));
  const shard = Number.parseInt(key.slice(0, 2), 16) % SHARDS;
  return (paths[shard] ??= join(journal.dir, `${shard.toString(16).padStart(2, '0')}${journal.extension}`));
}
const shardPaths = new WeakMap<JournalShards, string[]>();

/** The shard files there are. */
export function shardFiles(journal: JournalShards): string[] {
  let names: string[];
  try {
    names = readdirSync(journal.dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const extension = journal.extension;
  return names
    .filter((name) => name.length === 2 + extension.length && name.endsWith(extension) && /^[0-9a-f]{2}$/.test(name.slice(0, 2)))
    .map((name) => join(journal.dir, name));
}

/** Throws when the journal folder is there but is a link or not a folder of this user's that others cannot write; whether it is there. */
export function checkJournalDir(dir: string): boolean {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (!stat) return false;
  if (stat.isSymbolicLink()) throw new LocalFileError(`the journal ${dir} is a link: it is not followed`, 'EFOREIGN');
  if (!stat.isDirectory()) throw new LocalFileError(`the journal ${dir} is not a folder`, 'ENOTREG');
  const foreign = foreignness(stat);
  if (foreign) throw new LocalFileError(`the journal ${dir} ${foreign}`, 'EFOREIGN');
  return true;
}

/**
 * Makes the journal folder (0700) and checks it (checkJournalDir): a shard is opened without following
 * a link, but a folder on its way would be. Throws when it is not the user's own.
 */
export function ensureJournalDir(dir: string): void {
  checkJournalDir(dir);
  ensurePrivateDir(dir);
}

/** How a journal's lines name their key. */
export interface ShardLines {
  /** The keys' length in bytes (ASCII). */
  keyLength: number;
  /** Where the key of the line bytes[start, end) starts (end: its line end), or -1 for a line that is no key's (skipped). */
  keyAt(bytes: Buffer, start: number, end: number): number;
}

/** Reads of a journal's shards, kept for a run: see openShardReader. */
export interface ShardReader {
  /**
   * Each key's lines (from where keyAt says it starts to its line end, included), those of the asides
   * of a rewrite of its shard first: '' for none. Throws when a shard cannot be read.
   */
  linesOf(keys: readonly string[]): string[];
  /** Forgets what was read (the shards were removed: a file made later may be given the same inode). */
  forget(): void;
}

/** What a reader knows of one shard: where it stands in it (append-log.ts's LogPlace), and where each key's lines are. */
interface ShardSeen {
  place: LogPlace;
  /** Key → [start, end) byte offsets of its lines, in pairs. */
  spans: Map<string, number[]>;
}

/** Reads of a shard before a reader takes what it has, when appends keep coming between its read and its check. */
const READ_ATTEMPTS = 4;
const NEWLINE = 0x0a;

/**
 * A reader of the journal that reads each shard once a run, then only what was appended to it since (a
 * shard replaced, by a fold or otherwise, is read again from its start). It keeps where each key's lines
 * are, not the lines: a key's lines are read from the file when asked. Only whole lines: a last line
 * without its line end is being written (or was cut off), and is read when it has one.
 */
export function openShardReader(journal: JournalShards, lines: ShardLines, onRead?: (path: string, bytes: number) => void): ShardReader {
  const shards = new Map<string, ShardSeen>();
  /** Notes where each key's whole lines are in bytes (read from `offset`). */
  const scan = (bytes: Buffer, offset: number, spans: Map<string, number[]>): void => {
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; start = end + 1, end = bytes.indexOf(NEWLINE, start)) {
      const at = lines.keyAt(bytes, start, end);
      if (at === -1) continue;
      const key = bytes.toString('latin1', at, at + lines.keyLength);
      const list = spans.get(key);
      if (list) list.push(offset + at, offset + end + 1);
      else spans.set(key, [offset + at, offset + end + 1]);
    }
  };
  /** The keys' lines in the shard at path as it is now, and which file that was at what size (id '' for none). */
  const readShard = (path: string, keys: readonly string[]): { texts: string[]; id: string; size: number } => {
    const shard = openLogForReading(path);
    if (!shard) {
      shards.delete(path);
      return { texts: keys.map(() => ''), id: '', size: 0 };
    }
    const { fd, id, size } = shard;
    try {
      let seen = shards.get(path);
      if (!seen) shards.set(path, (seen = { place: { id, read: 0 }, spans: new Map() }));
      if (size > journal.maxBytes) throw new LocalFileError(`${path} is larger than ${journal.maxBytes} bytes`, 'EFBIG');
      const added = readNewLines(shard, seen.place);
      if (added.fresh) seen.spans = new Map();
      if (added.tailBytes > 0) onRead?.(path, added.tailBytes);
      scan(added.bytes, added.from, seen.spans);
      const texts = keys.map((key) => {
        const spans = seen.spans.get(key);
        if (!spans) return '';
        // A read for each run of its lines that follow one another (a day's points of a series are a day's
        // worth of other lines apart: reading from its first line to its last would read most of the shard).
        let text = '';
        for (let i = 0; i < spans.length; ) {
          const start = spans[i]!;
          let end = spans[i + 1]!;
          for (i += 2; i < spans.length && spans[i] === end; i += 2) end = spans[i + 1]!;
          const bytes = readFrom(fd, start, end);
          onRead?.(path, bytes.length);
          text += bytes.toString('utf8');
        }
        return text;
      });
      return { texts, id, size };
    } finally {
      closeSync(fd);
    }
  };
  /** The keys' whole lines in the asides of the shard at path (a rewrite's under way, or a killed one's). */
  const readAsideLines = (path: string, keys: readonly string[]): string[] => {
    const spans = new Map<string, number[]>();
    const texts = new Map<string, string>();
    for (const aside of readAsides(journal.asideDir, path, journal.maxBytes)) {
      const bytes = Buffer.from(aside);
      spans.clear();
      scan(bytes, 0, spans);
      for (const key of keys) {
        const list = spans.get(key);
        for (let i = 0; list && i < list.length; i += 2) texts.set(key, (texts.get(key) ?? '') + bytes.toString('utf8', list[i]!, list[i + 1]!));
      }
    }
    return keys.map((key) => texts.get(key) ?? '');
  };
  /** The places of keys by their shard (one key, as the history asks: one shard, no map). */
  const byShard = (keys: readonly string[]): Array<{ path: string; places: number[] }> => {
    if (keys.length === 1) return [{ path: shardPath(journal, keys[0]!), places: [0] }];
    const groups = new Map<string, number[]>();
    for (let at = 0; at < keys.length; at++) {
      const path = shardPath(journal, keys[at]!);
      const places = groups.get(path);
      if (places) places.push(at);
      else groups.set(path, [at]);
    }
    return Array.from(groups, ([path, places]) => ({ path, places }));
  };
  return {
    linesOf(keys) {
      const found = new Array<string>(keys.length).fill('');
      let left = byShard(keys);
      // A fold renames a new shard into place, then copies what was appended to the old one (linked
      // aside until then) since it read it. So the asides are read after the shard, and the shard again
      // if it changed meanwhile: a reader that read the new one before that copy finds the aside, or the copy.
      for (let attempt = 1; left.length > 0; attempt++) {
        const read = left.map(({ path, places }) => readShard(path, places.length === 1 ? [keys[places[0]!]!] : places.map((at) => keys[at]!)));
        // No aside folder is the common case: one look for all the shards read, not a listing each.
        const asides = lstatSync(journal.asideDir, { throwIfNoEntry: false }) !== undefined;
        const changed: typeof left = [];
        for (let i = 0; i < left.length; i++) {
          const { path, places } = left[i]!;
          const shard = read[i]!;
          const aside = asides
            ? readAsideLines(
                path,
                places.map((at) => keys[at]!),
              )
            : undefined;
          const now = exactLstat(path);
          const same = now ? fileId(now) === shard.id && Number(now.size) === shard.size : shard.id === '';
          if (!same && attempt < READ_ATTEMPTS) changed.push(left[i]!);
          else for (let j = 0; j < places.length; j++) found[places[j]!] = (aside?.[j] ?? '') + shard.texts[j]!;
        }
        left = changed;
      }
      return found;
    },
    forget: () => shards.clear(),
  };
}

/**
 * The journal's shards kept open for appends (a batch appends a few lines a turn: a write and its check
 * each time, not five calls), and what waits for this turn's write.
 */
export interface ShardWriters {
  /** Appends text to the shard at path now, in one write; the shard's size after. Throws when it cannot. */
  append(path: string, text: string): number;
  /**
   * Appends text to the shard at path with the others of this turn of writes (one write a shard a turn,
   * a line end first; state/write-turns.ts: a turn of the event loop, stretched in a batch); resolves to its size after.
   */
  appendThisTurn(path: string, text: string): Promise<number>;
  /** Closes the shard's file (after a fold renamed another into place: the next append opens that). Never throws. */
  drop(path: string): void;
  /** Closes every shard's file (an append after it opens it again). Throws the first failure, once all are closed. */
  close(): void;
}

/** One shard's writes of a turn: its text, and the one promise its callers share (settled once it is written). */
interface ShardTurn {
  text: string;
  done: Promise<number>;
  settle(outcome: number | Error): void;
}

function shardTurn(): ShardTurn {
  let settle: ShardTurn['settle'] = () => {};
  const done = new Promise<number>((resolve, reject) => {
    settle = (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome));
  });
  // A line end first: a line a writer killed mid-write left unfinished ends there, where the turn's
  // first line would be glued to it and lost (an empty line is no key's).
  return { text: '\n', done, settle };
}

/**
 * Writers of a journal's shards. `remake` runs when a shard's folder went meanwhile (a `rep cache clear`,
 * a cleaner: ENOENT), before the append is made again, once; `beforeTurn` before each turn's writes.
 */
export function openShardWriters(remake: () => void, beforeTurn?: () => void): ShardWriters {
  const writers = new Map<string, LogWriter>();
  let pending = new Map<string, ShardTurn>();
  const writeOnce = (path: string, text: string) => {
    let writer = writers.get(path);
    if (!writer) writers.set(path, (writer = openLogWriter(path)));
    return writer.append(text);
  };
  const append = (path: string, text: string) => {
    try {
      return writeOnce(path, text);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      remake();
      return writeOnce(path, text);
    }
  };
  const close = () => {
    const open = [...writers.values()];
    writers.clear();
    let failure: unknown;
    for (const writer of open) {
      try {
        writer.close();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  };
  const flush = () => {
    const turn = pending;
    pending = new Map();
    try {
      beforeTurn?.();
    } catch {
      // Its own to tell: the writes go on.
    }
    for (const [path, { text, settle }] of turn) {
      let outcome: number | Error;
      try {
        outcome = append(path, text);
      } catch (error) {
        outcome = error instanceof Error ? error : new Error(String(error));
      }
      settle(outcome);
    }
    // Windows cannot rename a file that is open (a fold's): there a shard is opened a turn at a time.
    if (process.platform === 'win32') closeQuietly();
  };
  const closeQuietly = () => {
    try {
      close();
    } catch {
      // Its lines were written as they came.
    }
  };
  return {
    append,
    appendThisTurn(path, text) {
      stageWrite(pending.size === 0 ? flush : undefined);
      let turn = pending.get(path);
      if (!turn) pending.set(path, (turn = shardTurn()));
      turn.text += text;
      return turn.done;
    },
    drop(path) {
      const writer = writers.get(path);
      writers.delete(path);
      try {
        writer?.close();
      } catch {
        // Its lines were written as they came.
      }
    },
    close,
  };
}
