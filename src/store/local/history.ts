// The local score history: a directory (0700) with one JSON Lines file per series, named by a hash of
// (base URL, query key), so reading one company's points reads one small file however long the
// history grows; and index.jsonl, one line per series and spelling, for names, completion and the
// company-name fallback. Every line is self-contained (it holds its id); a corrupt line is skipped
// with one warning. Appends are O_APPEND writes (the index line before the point), so a crash at any
// moment loses nothing acknowledged. No point goes unless prune() is asked.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, fileId, readLocalFile } from '../../local-file.js';
import { removeStaleFiles } from '../../state/files.js';
import { parsePoint } from '../../state/history.js';
import { appendToLog, openLogWriter, readLog, recoverRewrites, rewriteLog, type LogWriter } from '../../state/append-log.js';
import { DigestSet } from '../../state/digest-set.js';
import { sha256Hex } from '../../state/ids.js';
import { compareNames, nameKey, pointKeys } from '../policy.js';
import type { HistoryPoint, HistoryPort, HistoryStats, RangeQuestion } from '../port.js';
import { MARKET_SERIES } from '../port.js';
import { parseJson } from '../../text.js';

const SERIES_DIR = 'series';
const INDEX_FILE = 'index.jsonl';
/** Where a prune links the file it replaces until its tail is copied; what a killed prune left is merged back on the next open. */
const PRUNING_DIR = 'pruning';
const MAX_INDEX_BYTES = 256 * 1024 * 1024;
/** A series is one company's points: years of daily points are well under this. */
export const MAX_SERIES_BYTES = 256 * 1024 * 1024;
/** Series file names kept for a run before the list starts over (a batch asks for each of its names once or twice). */
const SERIES_PATHS_MAX = 4096;

/** One index line: a series and one spelling of its query and company name. */
interface IndexEntry {
  base: string;
  series: string;
  query: string;
  name?: string;
  keys: string[];
}

export interface LocalHistoryOptions {
  /** Says once what is wrong (a corrupt line, a foreign folder). */
  warn?: (text: string) => void;
  /** Runs before the first read or write (the migration of a history.jsonl); a refusal (why, in words) makes every call fail. */
  prepare?: () => Promise<string | undefined>;
}

/** The local history: the port, and close() for the index it keeps open between appends. */
export interface LocalHistory extends HistoryPort {
  /** Closes the index file (an append after it opens it again). Throws when the close fails. */
  close(): void;
}

/** The history in `dir`. Every method rejects when the directory cannot be read or written. */
export function openLocalHistory(dir: string, { warn, prepare }: LocalHistoryOptions = {}): LocalHistory {
  let ready: Promise<string | undefined> | undefined;
  const corruptWarned = new Set<string>();
  const ensureReady = async () => {
    ready ??= (async () => {
      const refused = prepare ? await prepare() : undefined;
      if (!refused) recoverPrunes(dir, warn);
      return refused;
    })();
    const refused = await ready;
    if (refused) throw new Error(refused);
  };
  // A name's file is a hash of its series; a batch or a day's append asks for the same few many times.
  const seriesPaths = new Map<string, string>();
  const seriesPath = (base: string, key: string) => {
    const series = `${base}\n${key}`;
    let path = seriesPaths.get(series);
    if (path === undefined) {
      if (seriesPaths.size >= SERIES_PATHS_MAX) seriesPaths.clear(); // flat memory however many names a batch has
      seriesPaths.set(series, (path = join(dir, SERIES_DIR, `${sha256Hex(series).slice(0, 32)}.jsonl`)));
    }
    return path;
  };
  const readPoints = (path: string) => {
    const { points, corrupt } = parseText(readSeriesText(path));
    if (corrupt > 0 && !corruptWarned.has(path)) {
      corruptWarned.add(path);
      warn?.(`skipped ${corrupt === 1 ? 'a corrupt line' : `${corrupt} corrupt lines`} in the history file ${path}`);
    }
    return points;
  };
  /**
   * The index, parsed once for as long as the file is the same (device, inode, size and time): a report
   * asks for a thousand series in one run, and each asked the whole index again. Appends grow the file and
   * a prune replaces it, so either reads it anew.
   */
  let parsedIndex: { identity: string; entries: IndexEntry[] } | undefined;
  const readIndex = (): IndexEntry[] => {
    const path = join(dir, INDEX_FILE);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    const identity = stat ? `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}` : '';
    if (parsedIndex?.identity === identity) return parsedIndex.entries;
    const entries = parseIndex(readLocalFile(path, MAX_INDEX_BYTES, { noFollow: true, ownOnly: true }) ?? '');
    parsedIndex = { identity, entries };
    return entries;
  };
  /**
   * The index lines known, read once a run rather than once an append (a batch's appends were
   * quadratic). Read again when the index was replaced or shrank (a prune elsewhere); lines another
   * process added meanwhile may be written twice, which readers take once. Each is kept as its
   * 128-bit digest in a DigestSet (outside V8's heap), not its text: a batch of 100,000 names adds 100,000 lines.
   */
  let indexLines: DigestSet | undefined;
  let indexSeen: { id: string; size: number } | undefined;
  /** The index file now, in the form of the append's own check (LogWriter.lastChecked). */
  const indexIdentity = () => {
    const stat = lstatSync(join(dir, INDEX_FILE), { bigint: true, throwIfNoEntry: false });
    return stat ? { id: fileId(stat), size: Number(stat.size) } : undefined;
  };
  const knownIndexLines = () => {
    const now = indexIdentity();
    if (!indexLines || !indexSeen || !now || now.id !== indexSeen.id || now.size < indexSeen.size) {
      indexLines = new DigestSet();
      for (const entry of readIndex()) indexLines.add(indexLine(entry));
    }
    indexSeen = now;
    return indexLines;
  };
  // The index stays open between appends (a batch appends a few lines a turn): a write and its check
  // each time, not five calls. The series folder is made private once a run, and again if it went.
  let indexWriter: LogWriter | undefined;
  let seriesDirReady = false;
  const ensureSeriesDir = () => {
    ensurePrivateDir(join(dir, SERIES_DIR));
    seriesDirReady = true;
  };
  /** Appends to a log of the history; when the folder went meanwhile (ENOENT), it is made again, once. */
  const appendAgainIfGone = (write: () => void) => {
    try {
      write();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      ensureSeriesDir();
      write();
    }
  };
  const appendToIndex = (text: Buffer) => {
    appendAgainIfGone(() => {
      indexWriter ??= openLogWriter(join(dir, INDEX_FILE));
      indexWriter.append(text);
    });
    indexSeen = indexWriter?.lastChecked();
    // Windows cannot rename or remove a file that is open: there it is opened an append at a time.
    if (process.platform === 'win32') closeIndex();
  };
  const closeIndex = () => {
    const writer = indexWriter;
    indexWriter = undefined;
    writer?.close();
  };
  /** The series files whose index lines say they may hold a point answering to one of `keys`. */
  const seriesFor = (keys: ReadonlySet<string>, base?: string) => {
    const paths = new Set<string>();
    for (const entry of readIndex()) {
      if ((base === undefined || entry.base === base) && entry.keys.some((key) => keys.has(key))) paths.add(join(dir, SERIES_DIR, `${entry.series}.jsonl`));
    }
    return [...paths];
  };

  return {
    async append(points) {
      await ensureReady();
      if (points.length === 0) return;
      if (!seriesDirReady) ensureSeriesDir();
      const known = knownIndexLines();
      const newIndex: string[] = [];
      const bySeries = new Map<string, HistoryPoint[]>();
      for (const point of points) {
        const path = seriesPath(point.base_url, nameKey(point.query));
        const line = indexLine({ base: point.base_url, series: seriesName(path), query: point.query, ...(point.name ? { name: point.name } : {}) });
        if (known.add(line)) newIndex.push(line);
        const list = bySeries.get(path);
        if (list) list.push(point);
        else bySeries.set(path, [point]);
      }
      // The index first: a point is never where no index line leads (a line without points is harmless).
      if (newIndex.length > 0) appendToIndex(Buffer.from(newIndex.map((line) => `${line}\n`).join('')));
      // No read of the series to skip ids it holds: readers take each id once (an append stays flat as a series grows).
      for (const [path, list] of bySeries) {
        const text = Buffer.from(
          onePerId(list)
            .map((point) => `${JSON.stringify(point)}\n`)
            .join(''),
        );
        appendAgainIfGone(() => appendToLog(path, text));
      }
    },

    close: closeIndex,

    async previous(questions) {
      await ensureReady();
      const cache = new Map<string, HistoryPoint[]>();
      const read = (path: string) => {
        let points = cache.get(path);
        if (!points) cache.set(path, (points = readPoints(path)));
        return points;
      };
      let index: IndexEntry[] | undefined;
      const sets = new Map<readonly string[] | undefined, ReadonlySet<string>>(); // a batch passes one list to every question
      return questions.map((question) => {
        let excluded = sets.get(question.excludeIds);
        if (!excluded) sets.set(question.excludeIds, (excluded = new Set(question.excludeIds ?? [])));
        const seen = (point: HistoryPoint) => point.base_url === question.baseUrl && Date.parse(point.at) < question.before && !excluded.has(point.id);
        const own = newest(read(seriesPath(question.baseUrl, question.queryKey)).filter((point) => seen(point) && nameKey(point.query) === question.queryKey));
        if (own) return own;
        const keys = new Set([question.queryKey, ...(question.nameKey === undefined ? [] : [question.nameKey])]);
        index ??= readIndex();
        const paths = new Set(
          index
            .filter((entry) => entry.base === question.baseUrl && entry.keys.some((key) => keys.has(key)))
            .map((entry) => join(dir, SERIES_DIR, `${entry.series}.jsonl`)),
        );
        return newest([...paths].flatMap((path) => read(path).filter((point) => seen(point) && pointKeys(point).some((key) => keys.has(key)))));
      });
    },

    async range(question: RangeQuestion) {
      await ensureReady();
      const keys = new Set([question.key]);
      const points = seriesFor(keys, question.baseUrl).flatMap((path) =>
        readPoints(path).filter((point) => {
          const at = Date.parse(point.at);
          return (
            (question.baseUrl === undefined || point.base_url === question.baseUrl) &&
            pointKeys(point).includes(question.key) &&
            (question.since === undefined || at >= question.since) &&
            (question.until === undefined || at < question.until)
          );
        }),
      );
      return inTimeOrder(onePerId(points));
    },

    async names(prefixKey) {
      await ensureReady();
      const names = new Map<string, string>();
      for (const entry of readIndex()) {
        for (const text of [entry.query, entry.name]) {
          if (text === undefined || text === MARKET_SERIES) continue;
          const key = nameKey(text);
          if (key.startsWith(prefixKey)) names.set(key, text);
        }
      }
      return [...names.values()].sort(compareNames);
    },

    async prune(before) {
      await ensureReady();
      let removed = 0;
      for (const path of seriesFiles(dir)) removed += pruneFile(dir, path, before, warn);
      removeStaleFiles(join(dir, SERIES_DIR)); // what a prune killed before its rename left
      return removed;
    },

    async stats(): Promise<HistoryStats> {
      await ensureReady();
      const ids = new Set<string>();
      let bytes = fileSize(join(dir, INDEX_FILE));
      let oldest: string | undefined;
      for (const path of seriesFiles(dir)) {
        bytes += fileSize(path);
        for (const point of readPoints(path)) {
          ids.add(point.id);
          if (oldest === undefined || point.at < oldest) oldest = point.at;
        }
      }
      return { points: ids.size, bytes, ...(oldest === undefined ? {} : { oldest }), where: dir };
    },
  };
}

/** Points from a series file's text, each id once, and how many lines were corrupt. */
export function parseText(text: string): { points: HistoryPoint[]; corrupt: number } {
  let corrupt = 0;
  const points: HistoryPoint[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const point = parsePoint(line);
    if (point) points.push(point);
    else corrupt += 1;
  }
  return { points: onePerId(points), corrupt };
}

/** The series file's text ('' when there is none); never through a link. Throws when it cannot be read. */
export function readSeriesText(path: string): string {
  return readLog(path, MAX_SERIES_BYTES);
}

/** Removes the points dated before `before` from one series file (state/append-log.ts's rewrite); how many went. */
function pruneFile(dir: string, path: string, before: number, warn?: (text: string) => void): number {
  let removed = 0;
  try {
    const outcome = rewriteLog(path, {
      asideDir: join(dir, PRUNING_DIR),
      tag: String(before),
      maxBytes: MAX_SERIES_BYTES,
      rewrite(text) {
        const { points } = parseText(text);
        const kept = points.filter((point) => Date.parse(point.at) >= before);
        removed = points.length - kept.length;
        return removed === 0 ? undefined : kept.map((point) => `${JSON.stringify(point)}\n`).join('');
      },
      recover: recoverPoints,
    });
    // Busy: another prune holds the file, and takes what this one would have.
    return outcome === 'rewritten' ? removed : 0;
  } catch (error) {
    warn?.(`cannot prune the history file ${path}`);
    throw error;
  }
}

/** Merges back what killed prunes left under pruning/: their points at or after each prune's cut-off. */
function recoverPrunes(dir: string, warn?: (text: string) => void): void {
  recoverRewrites(
    join(dir, PRUNING_DIR),
    (stem, extension) => (/^[0-9a-f]{32}$/.test(stem) && extension === '.jsonl' ? join(dir, SERIES_DIR, `${stem}.jsonl`) : undefined),
    {
      maxBytes: MAX_SERIES_BYTES,
      recover: recoverPoints,
      onFailure: (aside) => warn?.(`cannot merge ${aside} back into the history; it is kept`),
    },
  );
}

/** The points of a killed prune's old file at or after its cut-off (the tag) that the series file lacks, as lines. */
function recoverPoints(aside: string, log: string, tag: string): string {
  const have = new Set(parseText(log).points.map((point) => point.id));
  return parseText(aside)
    .points.filter((point) => Date.parse(point.at) >= Number(tag) && !have.has(point.id))
    .map((point) => `${JSON.stringify(point)}\n`)
    .join('');
}

function seriesFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, SERIES_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => /^[0-9a-f]{32}\.jsonl$/.test(name)).map((name) => join(dir, SERIES_DIR, name));
}

function seriesName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1, -'.jsonl'.length);
}

function indexLine(entry: Omit<IndexEntry, 'keys'>): string {
  return JSON.stringify({ base: entry.base, series: entry.series, query: entry.query, ...(entry.name === undefined ? {} : { name: entry.name }) });
}

function parseIndex(text: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const data = parseJson(line.slice(Math.max(0, line.lastIndexOf('{"base":')))) as Record<string, unknown>;
      if (typeof data.base !== 'string' || typeof data.series !== 'string' || typeof data.query !== 'string') continue;
      const name = typeof data.name === 'string' ? data.name : undefined;
      entries.push({ base: data.base, series: data.series, query: data.query, ...(name ? { name } : {}), keys: pointKeys({ query: data.query, name }) });
    } catch {
      // A torn line: the point it led to has its own line in the next append's index line, or none.
    }
  }
  return entries;
}

function newest(points: readonly HistoryPoint[]): HistoryPoint | undefined {
  let best: HistoryPoint | undefined;
  for (const point of points) if (!best || point.at >= best.at) best = point;
  return best;
}

function onePerId(points: readonly HistoryPoint[]): HistoryPoint[] {
  const byId = new Map<string, HistoryPoint>();
  for (const point of points) if (!byId.has(point.id)) byId.set(point.id, point);
  return [...byId.values()];
}

function inTimeOrder(points: HistoryPoint[]): HistoryPoint[] {
  return points.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

function fileSize(path: string): number {
  return lstatSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
