// The request ledger's lines (state/requests.ts), read, folded and merged back. Three kinds, each with an id:
//   {"id":"RUN-SEQ","at":MS}                         one request a run sent (SEQ counts the run's lines)
//   {"id":"RUN-SEQ","rateLimit":{…,"seenAt":MS}}     rate-limit facts a response carried
//   {"id":"RUN","upTo":SEQ,"minutes":{"MINUTE":N}}   a rewrite's fold of the run's requests up to SEQ
// A request line the run's fold covers (SEQ <= upTo) is counted by the fold; of a run's folds the one
// that goes furthest wins; a line read twice (an appender that raced a rewrite writes again) counts once.
// A fold is only made under the log's rewrite lock, after what a killed rewrite left is merged back, so
// every line of the run up to its SEQ is in the file it reads.
import { HOUR_MS } from '../time.js';
import { isRecord, parseJson } from '../text.js';

/** The last rate-limit facts a server sent for a key. */
export interface RateLimitSnapshot {
  limit?: number;
  remaining?: number;
  resetAt?: number;
  windowSeconds?: number;
  /** When the response carrying them arrived (epoch ms). */
  seenAt: number;
}

/** Requests a count may hold: `n` of them sent by `run` in [from, to) (to: the minute's end for a fold). */
export interface LedgerEntry {
  from: number;
  to: number;
  n: number;
  run: string;
}

/** What an earlier rep's record file held for one run (requests per minute index, the last facts). */
export interface LegacyRecord {
  id: string;
  minutes: Record<string, number>;
  rateLimit?: RateLimitSnapshot;
}

const MINUTE_MS = 60 * 1000;
/** Facts older than this are not shown, and a rewrite drops them. */
const RATE_LIMIT_TTL_MS = 24 * HOUR_MS;
/** A request line as this module writes it: read without JSON.parse (a log holds thousands). */
const REQUEST_LINE = /^\{"id":"([0-9a-f]{1,64})-(\d{1,15})","at":(\d{1,15})\}$/;

interface Fold {
  upTo: number;
  minutes: Record<string, number>;
}

/** The lines of one scope's logs, added file by file, as counts and facts. */
export class LedgerLines {
  private readonly requests = new Map<string, { run: string; seq: number; at: number }>();
  private readonly folds = new Map<string, Fold>();
  private readonly legacy: LegacyRecord[] = [];
  /** The newest facts of the last day; of two seen at one moment, the one read last. */
  rateLimit: RateLimitSnapshot | undefined;
  /** Lines as read (for a rewrite), kept only when asked. */
  private factsLine: string | undefined;

  /** `exceptRun`'s own lines are left out (a run adds its own on top). */
  constructor(
    private readonly nowMs: number,
    private readonly exceptRun?: string,
  ) {}

  /** Adds a log's (or an aside's) text. */
  add(text: string): void {
    for (const line of text.split('\n')) if (line) this.addLine(line);
  }

  addLegacy(record: LegacyRecord): void {
    this.legacy.push(record);
    if (record.rateLimit) this.noteFacts(record.rateLimit, undefined);
  }

  /** Every request counted, as entries (a fold's per minute). */
  entries(): LedgerEntry[] {
    const entries: LedgerEntry[] = [];
    const minutes = (run: string, counts: Record<string, number>) => {
      for (const [minute, n] of Object.entries(counts)) entries.push({ from: Number(minute) * MINUTE_MS, to: (Number(minute) + 1) * MINUTE_MS, n, run });
    };
    for (const [run, fold] of this.folds) minutes(run, fold.minutes);
    for (const request of this.requests.values()) {
      if (request.seq <= (this.folds.get(request.run)?.upTo ?? 0)) continue;
      entries.push({ from: Math.floor(request.at / MINUTE_MS) * MINUTE_MS, to: request.at + 1, n: 1, run: request.run });
    }
    for (const record of this.legacy) minutes(`legacy:${record.id}`, record.minutes);
    return entries;
  }

  /** The text a rewrite puts in place of `text` at nowMs: each run's requests of the last hour as one fold, the newest facts of the last day. */
  static compact(text: string, nowMs: number): string | undefined {
    const lines = new LedgerLines(nowMs);
    lines.add(text);
    const firstMinute = Math.floor((nowMs - HOUR_MS) / MINUTE_MS);
    const runs = new Map<string, Fold>();
    for (const [run, fold] of lines.folds) runs.set(run, { upTo: fold.upTo, minutes: { ...fold.minutes } });
    for (const request of lines.requests.values()) {
      let fold = runs.get(request.run);
      if (!fold) runs.set(request.run, (fold = { upTo: 0, minutes: {} }));
      if (request.seq <= (lines.folds.get(request.run)?.upTo ?? 0)) continue;
      const minute = String(Math.floor(request.at / MINUTE_MS));
      fold.minutes[minute] = (fold.minutes[minute] ?? 0) + 1;
    }
    for (const request of lines.requests.values()) {
      const fold = runs.get(request.run);
      if (fold && request.seq > fold.upTo) fold.upTo = request.seq;
    }
    let out = '';
    for (const [run, fold] of runs) {
      const minutes = Object.fromEntries(Object.entries(fold.minutes).filter(([minute]) => Number(minute) >= firstMinute));
      if (Object.keys(minutes).length > 0) out += `${JSON.stringify({ id: run, upTo: fold.upTo, minutes })}\n`;
    }
    if (lines.factsLine) out += `${lines.factsLine}\n`;
    return out.length < text.length ? out : undefined;
  }

  private addLine(line: string): void {
    const fast = REQUEST_LINE.exec(line);
    if (fast) {
      this.addRequest(fast[1]!, Number(fast[2]), Number(fast[3]));
      return;
    }
    let data: unknown;
    try {
      data = parseJson(line);
    } catch {
      return; // a torn or foreign line is skipped; the others still count
    }
    if (!isRecord(data) || typeof data.id !== 'string') return;
    const id = /^([0-9a-f]{1,64})(?:-(\d{1,15}))?$/.exec(data.id);
    if (!id) return;
    const [, run, seq] = id as unknown as [string, string, string | undefined];
    if (run === this.exceptRun) return;
    if (seq === undefined) {
      if (isSeq(data.upTo) && isRecord(data.minutes)) this.addFold(run, data.upTo, cleanMinutes(data.minutes));
      return;
    }
    if (isSeq(data.at)) this.addRequest(run, Number(seq), data.at);
    else if (isRecord(data.rateLimit)) {
      const facts = cleanSnapshot(data.rateLimit);
      if (facts) this.noteFacts(facts, JSON.stringify({ id: data.id, rateLimit: facts }));
    }
  }

  private addRequest(run: string, seq: number, at: number): void {
    if (run === this.exceptRun || seq < 1) return;
    this.requests.set(`${run}-${seq}`, { run, seq, at });
  }

  private addFold(run: string, upTo: number, minutes: Record<string, number>): void {
    const known = this.folds.get(run);
    if (!known || known.upTo < upTo) this.folds.set(run, { upTo, minutes });
  }

  private noteFacts(facts: RateLimitSnapshot, line: string | undefined): void {
    if (this.nowMs - facts.seenAt > RATE_LIMIT_TTL_MS) return;
    if (this.rateLimit && this.rateLimit.seenAt > facts.seenAt) return;
    this.rateLimit = facts;
    this.factsLine = line;
  }
}

/** Sound numbers of a snapshot, or undefined without a sound seenAt. */
export function cleanSnapshot(data: Record<string, unknown>): RateLimitSnapshot | undefined {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);
  const seenAt = number(data.seenAt);
  if (seenAt === undefined) return undefined;
  const snapshot: RateLimitSnapshot = { seenAt };
  for (const field of ['limit', 'remaining', 'resetAt', 'windowSeconds'] as const) {
    const value = number(data[field]);
    if (value !== undefined) snapshot[field] = value;
  }
  return snapshot;
}

/** Whole positive counts per minute index; anything else is dropped. */
export function cleanMinutes(data: Record<string, unknown>): Record<string, number> {
  const minutes: Record<string, number> = {};
  for (const [minute, n] of Object.entries(data)) if (/^\d+$/.test(minute) && typeof n === 'number' && Number.isSafeInteger(n) && n > 0) minutes[minute] = n;
  return minutes;
}

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
