// The local score history: a directory (0700) with one JSON Lines file per series, named by a hash of
// (base URL, query key), so reading one company's points reads one small file however long the
// history grows; and index.jsonl, one line per series and spelling, for names, completion and the
// company-name fallback. Every line is self-contained (it holds its id); a corrupt line is skipped
// with one warning. Appends are O_APPEND writes (the index line before the point), so a crash at any
// moment loses nothing acknowledged. No point goes unless prune() is asked. The files' lines, and the
// prune of one file, are series-files.ts's.
import { closeSync, constants, fstatSync, lstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, fileId, foreignness, LocalFileError, readFrom } from '../../local-file.js';
import { removeStaleFiles } from '../../state/files.js';
import { appendToLog, openLogWriter, type LogWriter } from '../../state/append-log.js';
import { DigestSet } from '../../state/digest-set.js';
import { sha256Hex } from '../../state/ids.js';
import { compareNames, nameKey, pointKeys } from '../policy.js';
import type { HistoryPoint, HistoryPort, HistoryStats, RangeQuestion } from '../port.js';
import { MARKET_SERIES } from '../port.js';
import {
  fileSize,
  INDEX_FILE,
  type IndexEntry,
  inTimeOrder,
  indexLine,
  MAX_INDEX_BYTES,
  newest,
  onePerId,
  parseIndex,
  parseText,
  pruneFile,
  readSeriesText,
  recoverPrunes,
  SERIES_DIR,
  seriesFiles,
  seriesName,
} from './series-files.js';

/** Series file names kept for a run before the list starts over (a batch asks for each of its names once or twice). */
const SERIES_PATHS_MAX = 4096;

export interface LocalHistoryOptions {
  /** Says once what is wrong (a corrupt line, a foreign folder). */
  warn?: (text: string) => void;
  /** Runs before the first read or write (the migration of a history.jsonl); a refusal (why, in words) makes every call fail. */
  prepare?: () => Promise<string | undefined>;
  /** Tests only: hears each read of the index file (its path, the bytes read). */
  onRead?: (path: string, bytes: number) => void;
}

/** The local history: the port, and close() for the index it keeps open between appends. */
export interface LocalHistory extends HistoryPort {
  /** Closes the index file (an append after it opens it again). Throws when the close fails. */
  close(): void;
}

/** The history in `dir`. Every method rejects when the directory cannot be read or written. */
export function openLocalHistory(dir: string, { warn, prepare, onRead }: LocalHistoryOptions = {}): LocalHistory {
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
   * The index, parsed once a run and then only what was appended to it since (the same file): a report
   * asks for a thousand series in one run, and a batch asks each turn while its appends grow the file.
   * A prune replaces it, which reads it anew. With it, which series have a line (one that has none has
   * no point anywhere: nothing is read for it), and the series of each key at each base URL.
   */
  let parsedIndex: IndexSeen | undefined;
  const readIndex = (): IndexSeen => {
    const path = join(dir, INDEX_FILE);
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      parsedIndex = undefined;
      return emptyIndex();
    }
    try {
      const stat = fstatSync(fd, { bigint: true });
      const id = fileId(stat);
      const size = Number(stat.size);
      if (parsedIndex?.id === id && parsedIndex.read === size) return parsedIndex;
      if (parsedIndex?.id !== id || size < parsedIndex.read) {
        const plain = fstatSync(fd);
        if (!plain.isFile()) throw new LocalFileError(`${path} is not a regular file`, 'ENOTREG');
        const foreign = foreignness(plain);
        if (foreign) throw new LocalFileError(`${path} ${foreign}`, 'EFOREIGN');
        parsedIndex = { ...emptyIndex(), id };
      }
      if (size > MAX_INDEX_BYTES) throw new LocalFileError(`${path} is larger than ${MAX_INDEX_BYTES} bytes`, 'EFBIG');
      const tail = readFrom(fd, parsedIndex.read);
      onRead?.(path, tail.length);
      // Whole lines only: a line being written is read with the next call's tail.
      const whole = tail.lastIndexOf(10) + 1;
      for (const entry of parseIndex(tail.toString('utf8', 0, whole))) addEntry(parsedIndex, entry);
      parsedIndex.read += whole;
      return parsedIndex;
    } finally {
      closeSync(fd);
    }
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
      for (const entry of readIndex().entries) indexLines.add(indexLine(entry));
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
    for (const entry of readIndex().entries) {
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
      let index: IndexSeen | undefined;
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
          [...keys].flatMap((key) => [...(index?.byKey.get(`${question.baseUrl}\n${key}`) ?? [])].map((series) => join(dir, SERIES_DIR, `${series}.jsonl`))),
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
      for (const entry of readIndex().entries) {
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

/** The index as read so far: its file, how far, its entries, the series they name, and the series of each `base\nkey`. */
interface IndexSeen {
  id: string;
  read: number;
  entries: IndexEntry[];
  series: Set<string>;
  byKey: Map<string, Set<string>>;
}

function emptyIndex(): IndexSeen {
  return { id: '', read: 0, entries: [], series: new Set(), byKey: new Map() };
}

function addEntry(index: IndexSeen, entry: IndexEntry): void {
  index.entries.push(entry);
  index.series.add(entry.series);
  for (const key of entry.keys) {
    const both = `${entry.base}\n${key}`;
    const series = index.byKey.get(both);
    if (series) series.add(entry.series);
    else index.byKey.set(both, new Set([entry.series]));
  }
}
