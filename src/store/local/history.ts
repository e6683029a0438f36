// The local score history: a directory (0700) with index.jsonl, one line per series and spelling, for
// names, completion and the company-name fallback; a journal (journal.ts) of a few shard files that
// appends go to, a batch's points in one write a shard; and one JSON Lines file per series, named by a
// hash of (base URL, query key), that a shard past its bound is folded into. Reading one company's
// points reads its series file and its lines of one shard, however long the history grows. Every line
// is self-contained (it holds its id); a corrupt line is skipped with one warning. Appends are O_APPEND
// writes (the index line before the point), so a crash at any moment loses nothing acknowledged. No
// point goes unless prune() is asked. The series files' lines, and the prune of one file, are
// series-files.ts's; the shards' and their fold, journal.ts's.
import { closeSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, exactLstat, fileId, LocalFileError } from '../../local-file.js';
import { removeStaleFiles } from '../../state/files.js';
import { type LogPlace, openLogForReading, openLogWriter, readNewLines, type LogWriter } from '../../state/append-log.js';
import { openShardWriters } from '../../state/journal-shards.js';
import { DigestSet } from '../../state/digest-set.js';
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
  readSeriesPoints,
  readSeriesText,
  recoverPrunes,
  SERIES_DIR,
  seriesFiles,
} from './series-files.js';
import {
  checkJournalDir,
  ensureJournalDir,
  FOLD_BYTES,
  foldBound,
  foldShard,
  JOURNAL_DIR,
  journalLine,
  openJournalReader,
  parseJournal,
  pruneShard,
  readJournal,
  recoverShards,
  seriesOf,
  shardFiles,
  shardPath,
} from './journal.js';

/** Series names kept for a run before the list starts over (a batch asks for each of its names once or twice). */
const SERIES_NAMES_MAX = 4096;

export interface LocalHistoryOptions {
  /** Says once what is wrong (a corrupt line, a foreign folder). */
  warn?: (text: string) => void;
  /** Runs before the first read or write (the migration of a history.jsonl); a refusal (why, in words) makes every call fail. */
  prepare?: () => Promise<string | undefined>;
  /** A shard past this many bytes is folded into the series files (tests: a small bound folds often). */
  foldBytes?: number;
  /** Tests only: hears each read of the index or a shard file (its path, the bytes read). */
  onRead?: (path: string, bytes: number) => void;
}

/** The local history: the port, and close() for the index and shards it keeps open between appends. */
export interface LocalHistory extends HistoryPort {
  /** Closes the index and shard files (an append after it opens them again). Throws when a close fails. */
  close(): void;
}

/** The history in `dir`. Every method rejects when the directory cannot be read or written. */
export function openLocalHistory(dir: string, { warn, prepare, foldBytes = FOLD_BYTES, onRead }: LocalHistoryOptions = {}): LocalHistory {
  let ready: Promise<string | undefined> | undefined;
  const corruptWarned = new Set<string>();
  const ensureReady = async () => {
    ready ??= (async () => {
      const refused = prepare ? await prepare() : undefined;
      if (!refused) {
        recoverPrunes(dir, warn);
        recoverShards(dir, warn);
      }
      return refused;
    })();
    const refused = await ready;
    if (refused) throw new Error(refused);
  };
  // A name's series is a hash; a batch or a day's append asks for the same few many times.
  const seriesNames = new Map<string, string>();
  const seriesNameOf = (base: string, key: string) => {
    const both = `${base}\n${key}`;
    let series = seriesNames.get(both);
    if (series === undefined) {
      if (seriesNames.size >= SERIES_NAMES_MAX) seriesNames.clear(); // flat memory however many names a batch has
      seriesNames.set(both, (series = seriesOf(base, key)));
    }
    return series;
  };
  const seriesFile = (series: string) => join(dir, SERIES_DIR, `${series}.jsonl`);
  const warnCorrupt = (corrupt: number, path: string) => {
    if (corrupt > 0 && !corruptWarned.has(path)) {
      corruptWarned.add(path);
      warn?.(`skipped ${corrupt === 1 ? 'a corrupt line' : `${corrupt} corrupt lines`} in the history file ${path}`);
    }
  };
  const readPoints = (path: string) => {
    const { points, corrupt } = parseText(readSeriesText(path));
    warnCorrupt(corrupt, path);
    return points;
  };
  /** A series file's points as a reader takes them, a prune's under way included (readSeriesPoints). */
  const readSeriesFile = (path: string) => {
    const { points, corrupt } = readSeriesPoints(dir, path);
    warnCorrupt(corrupt, path);
    return points;
  };
  // The shards read once a run, then only what was appended since (journal.ts).
  let journal: ReturnType<typeof openJournalReader> | undefined;
  /**
   * A series' points: its journal lines, read first (a fold appends to the series file before it empties
   * the shard: a point leaving the one is in the other by then), then its series file.
   */
  const readSeries = (series: string, journalThere: boolean) => {
    let fromJournal: HistoryPoint[] = [];
    if (journalThere) {
      journal ??= openJournalReader(dir, onRead);
      const { points, corrupt } = parseJournal(journal.seriesText(series));
      warnCorrupt(corrupt, shardPath(dir, series));
      fromJournal = points;
    }
    const fromFile = readSeriesFile(seriesFile(series));
    return fromJournal.length === 0 ? fromFile : onePerId([...fromFile, ...fromJournal]);
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
    // No index yet is common (a first run): a look, where open() would throw (a run's first exception is dear on Node 20).
    if (!lstatSync(path, { throwIfNoEntry: false })) {
      parsedIndex = undefined;
      return emptyIndex();
    }
    const index = openLogForReading(path);
    if (!index) {
      parsedIndex = undefined;
      return emptyIndex();
    }
    const { fd, id, size } = index;
    try {
      parsedIndex ??= emptyIndex(id);
      if (size > MAX_INDEX_BYTES) throw new LocalFileError(`${path} is larger than ${MAX_INDEX_BYTES} bytes`, 'EFBIG');
      // Only the lines added since the last read (all of them when the index is another file now).
      const added = readNewLines(index, parsedIndex.place);
      if (added.fresh) parsedIndex = { ...emptyIndex(id), place: parsedIndex.place };
      if (added.tailBytes > 0) onRead?.(path, added.tailBytes);
      for (const entry of parseIndex(added.bytes.toString('utf8'))) addEntry(parsedIndex, entry);
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
    const stat = exactLstat(join(dir, INDEX_FILE));
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
  // The index and the shards stay open between appends (a batch appends a few lines a turn): a write and
  // its check each time, not five calls. The folders are made private once a run, and again if they went.
  let indexWriter: LogWriter | undefined;
  let dirsReady = false;
  const ensureDirs = () => {
    ensurePrivateDir(join(dir, SERIES_DIR)); // a history folder is known by it (import.ts), and folds fill it
    ensureJournalDir(dir);
    dirsReady = true;
  };
  /** Appends to a log of the history; when the folder went meanwhile (ENOENT), it is made again, once. */
  const appendAgainIfGone = <T>(write: () => T): T => {
    try {
      return write();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      ensureDirs();
      return write();
    }
  };
  const appendToIndex = (text: string) => {
    appendAgainIfGone(() => {
      indexWriter ??= openLogWriter(join(dir, INDEX_FILE));
      indexWriter.append(text);
    });
    indexSeen = indexWriter?.lastChecked();
  };
  const shardWriters = openShardWriters(ensureDirs);
  const closeWriters = () => {
    let failure: unknown;
    try {
      indexWriter?.close();
    } catch (error) {
      failure = error;
    }
    indexWriter = undefined;
    shardWriters.close(); // throws its first failure, once all are closed
    if (failure !== undefined) throw failure;
  };
  /**
   * Folds a shard grown past its bound. A fold that fails leaves the shard whole (the points are kept
   * there), is told once, and is not tried again this run: each append would read the shard again.
   */
  const unfoldable = new Set<string>();
  const fold = (path: string) => {
    if (unfoldable.has(path)) return;
    try {
      foldShard(dir, path);
    } catch (error) {
      if (unfoldable.size === 0)
        warn?.(`cannot fold the history's journal ${path} into its series files (${(error as Error).message}); its points are kept there`);
      unfoldable.add(path);
    } finally {
      // The file this process holds open is no longer the shard: the next append opens the new one.
      shardWriters.drop(path);
    }
  };
  /** The series whose index lines say they may hold a point answering to one of `keys`. */
  const seriesFor = (keys: ReadonlySet<string>, base?: string) => {
    const series = new Set<string>();
    for (const entry of readIndex().entries) {
      if ((base === undefined || entry.base === base) && entry.keys.some((key) => keys.has(key))) series.add(entry.series);
    }
    return [...series];
  };

  return {
    async append(points) {
      await ensureReady();
      if (points.length === 0) return;
      if (!dirsReady) ensureDirs();
      const known = knownIndexLines();
      let newIndex = '';
      /** Each shard's lines of this call, as one text. */
      const byShard = new Map<string, string>();
      const ids = new Set<string>();
      for (const point of points) {
        const series = seriesNameOf(point.base_url, nameKey(point.query));
        const line = indexLine({ base: point.base_url, series, query: point.query, ...(point.name ? { name: point.name } : {}) });
        if (known.add(line)) newIndex += `${line}\n`;
        if (ids.has(point.id)) continue;
        ids.add(point.id);
        const shard = shardPath(dir, series);
        byShard.set(shard, (byShard.get(shard) ?? '') + journalLine(series, point));
      }
      // The index first: a point is never where no index line leads (a line without points is harmless).
      if (newIndex !== '') appendToIndex(newIndex);
      // One write a shard. No read to skip ids it holds: readers take each id once (an append stays flat as a series grows).
      const full: string[] = [];
      byShard.forEach((lines, shard) => {
        if (shardWriters.append(shard, lines) > foldBound(shard, foldBytes)) full.push(shard);
      });
      for (const shard of full) fold(shard);
      // Windows cannot rename or remove a file that is open: there they are opened an append at a time.
      if (process.platform === 'win32') closeWriters();
    },

    close: closeWriters,

    async previous(questions) {
      await ensureReady();
      const cache = new Map<string, HistoryPoint[]>();
      const index = readIndex();
      let journalThere: boolean | undefined; // looked at once a call, when a series is read
      /** A series' points; none read for a series no index line names (it has none). */
      const read = (series: string) => {
        if (!index.series.has(series)) return [];
        let points = cache.get(series);
        journalThere ??= checkJournalDir(dir);
        if (!points) cache.set(series, (points = readSeries(series, journalThere)));
        return points;
      };
      const sets = new Map<readonly string[] | undefined, ReadonlySet<string>>(); // a batch passes one list to every question
      return questions.map((question) => {
        let excluded = sets.get(question.excludeIds);
        if (!excluded) sets.set(question.excludeIds, (excluded = new Set(question.excludeIds ?? [])));
        const seen = (point: HistoryPoint) => point.base_url === question.baseUrl && Date.parse(point.at) < question.before && !excluded.has(point.id);
        const own = newest(
          read(seriesNameOf(question.baseUrl, question.queryKey)).filter((point) => seen(point) && nameKey(point.query) === question.queryKey),
        );
        if (own) return own;
        const keys = new Set([question.queryKey, ...(question.nameKey === undefined ? [] : [question.nameKey])]);
        const series = new Set([...keys].flatMap((key) => [...(index.byKey.get(`${question.baseUrl}\n${key}`) ?? [])]));
        return newest([...series].flatMap((each) => read(each).filter((point) => seen(point) && pointKeys(point).some((key) => keys.has(key)))));
      });
    },

    async range(question: RangeQuestion) {
      await ensureReady();
      const keys = new Set([question.key]);
      const journalThere = checkJournalDir(dir);
      const points = seriesFor(keys, question.baseUrl).flatMap((series) =>
        readSeries(series, journalThere).filter((point) => {
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
      checkJournalDir(dir);
      // A point may be in a shard and a series file (a fold killed, or one appended twice): counted once.
      const removed = new Set<string>();
      // The shards first: a fold meanwhile moves their points to series files, pruned after.
      for (const path of shardFiles(dir)) {
        try {
          for (const id of pruneShard(dir, path, before)) removed.add(id);
        } catch (error) {
          warn?.(`cannot prune the history file ${path}`);
          throw error;
        }
      }
      for (const path of seriesFiles(dir)) for (const id of pruneFile(dir, path, before, warn)) removed.add(id);
      // What a prune or fold killed before its rename left.
      removeStaleFiles(join(dir, SERIES_DIR));
      removeStaleFiles(join(dir, JOURNAL_DIR));
      return removed.size;
    },

    async stats(): Promise<HistoryStats> {
      await ensureReady();
      const ids = new Set<string>();
      let bytes = fileSize(join(dir, INDEX_FILE));
      let oldest: string | undefined;
      const count = (point: HistoryPoint) => {
        ids.add(point.id);
        if (oldest === undefined || point.at < oldest) oldest = point.at;
      };
      // The shards before the series files, as every reader: a fold meanwhile moves points from the one to the other.
      if (checkJournalDir(dir)) {
        const journalPoints = readJournal(dir);
        bytes += journalPoints.bytes;
        for (const point of journalPoints.points) count(point);
      }
      for (const path of seriesFiles(dir)) {
        bytes += fileSize(path);
        for (const point of readPoints(path)) count(point);
      }
      return { points: ids.size, bytes, ...(oldest === undefined ? {} : { oldest }), where: dir };
    },
  };
}

/** The index as read so far: its file, how far, its entries, the series they name, and the series of each `base\nkey`. */
interface IndexSeen {
  /** Where the reader stands in the file (append-log.ts's readNewLines). */
  place: LogPlace;
  entries: IndexEntry[];
  series: Set<string>;
  byKey: Map<string, Set<string>>;
}

function emptyIndex(id = ''): IndexSeen {
  return { place: { id, read: 0 }, entries: [], series: new Set(), byKey: new Map() };
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
