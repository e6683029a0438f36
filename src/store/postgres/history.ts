// The score history in PostgreSQL: every machine's points in one table (rep_history), keyed by the
// point's id, so appending a point twice (a retry, an import run again) keeps it once. Series are
// found by the name keys policy.ts makes (query_key, name_key), through indexes, never by a scan.
import type { Sql } from 'postgres';
import { compareNames, nameKey } from '../policy.js';
import { connectionLost } from './connect.js';
import { literal } from './session.js';
import type { HistoryPoint, HistoryPort, HistoryStats, RangeQuestion } from '../port.js';
import { MARKET_SERIES } from '../port.js';

interface PointRow {
  id: string;
  at: Date;
  base_url: string;
  query: string;
  name: string | null;
  score: number;
  scale: number | null;
  sources: HistoryPoint['sources'];
}

/** Rows per INSERT: one statement holds them as one JSON parameter. */
const APPEND_CHUNK = 5000;
const COLUMNS = 'id, at, base_url, query, name, score, scale, sources';

export interface PostgresHistoryOptions {
  /** Resolves to a ready connection (schema migrated); each call goes through it, so it fails as the store fails. */
  sql: () => Promise<Sql>;
  /** Turns a driver's error into rep's (StoreError), naming what was being done. */
  failure: (error: unknown, doing: string) => Error;
  /** This machine's id, asked at the first write. */
  machine: () => string;
  where: string;
}

export function postgresHistory({ sql: ready, failure, machine, where }: PostgresHistoryOptions): HistoryPort {
  const run = async <T>(doing: string, work: (sql: Sql) => Promise<T>): Promise<T> => {
    try {
      return await work(await ready());
    } catch (error) {
      // Every statement here may run twice (an append keeps each id once): a connection lost under it is tried once more.
      if (!connectionLost(error)) throw failure(error, doing);
    }
    // Connecting again is part of the retry: what it meets is the store's failure too, never the driver's raw error.
    try {
      return await work(await ready());
    } catch (again) {
      throw failure(again, doing);
    }
  };
  return {
    append: (points) =>
      run('record history points', async (sql) => {
        for (let start = 0; start < points.length; start += APPEND_CHUNK) {
          const rows = points.slice(start, start + APPEND_CHUNK).map((point) => ({
            ...point,
            query_key: nameKey(point.query),
            name_key: nameKey(point.name ?? point.query),
          }));
          await sql`
            insert into rep_history (${sql.unsafe(COLUMNS)}, query_key, name_key, machine)
            select ${sql.unsafe(COLUMNS)}, query_key, name_key, ${machine()}
            from jsonb_to_recordset(${sql.json(rows as never)}) as p(id text, at timestamptz, base_url text, query text, name text,
              score double precision, scale double precision, sources jsonb, query_key text, name_key text)
            on conflict (id) do nothing`;
        }
      }),

    previous: (questions) =>
      run('read the history', async (sql) => {
        if (questions.length === 0) return [];
        const asked = questions.map((question, i) => ({
          i,
          base: question.baseUrl,
          qk: question.queryKey,
          nk: question.nameKey ?? null,
          before: new Date(question.before).toISOString(),
          ex: [...(question.excludeIds ?? [])],
        }));
        // Per question: its own series' newest point; only where there is none, the newest by query or company name.
        // The questions as a literal, not a parameter: a statement without parameters is one round trip (session.ts).
        const rows = await sql<Array<PointRow & { i: number }>>`
          select q.i, c.id, c.at, c.base_url, c.query, c.name, c.score, c.scale, c.sources
          from jsonb_to_recordset(${sql.unsafe(`${literal(JSON.stringify(asked))}::jsonb`)}) as q(i int, base text, qk text, nk text, before timestamptz, ex text[])
          cross join lateral (
            select * from (
              (select h.*, 0 as pref from rep_history h
                where h.base_url = q.base and h.query_key = q.qk and h.at < q.before and not (h.id = any(q.ex))
                order by h.at desc limit 1)
              union all
              (select h.*, 1 as pref from rep_history h
                where h.base_url = q.base and (h.query_key = any(array[q.qk, q.nk]) or h.name_key = any(array[q.qk, q.nk]))
                  and h.at < q.before and not (h.id = any(q.ex))
                order by h.at desc limit 1)
            ) found order by pref limit 1
          ) c`;
        const answers: Array<HistoryPoint | undefined> = questions.map(() => undefined);
        for (const row of rows) answers[row.i] = pointOf(row);
        return answers;
      }),

    range: (question: RangeQuestion) =>
      run('read the history', async (sql) => {
        const rows = await sql<PointRow[]>`
          select ${sql.unsafe(COLUMNS)} from rep_history
          where (query_key = ${question.key} or name_key = ${question.key})
            ${question.baseUrl === undefined ? sql`` : sql`and base_url = ${question.baseUrl}`}
            ${question.since === undefined ? sql`` : sql`and at >= ${new Date(question.since).toISOString()}::timestamptz`}
            ${question.until === undefined ? sql`` : sql`and at < ${new Date(question.until).toISOString()}::timestamptz`}
          order by at, id`;
        return rows.map(pointOf);
      }),

    names: (prefixKey) =>
      run('read the history', async (sql) => {
        const rows = await sql<Array<{ text: string }>>`
          select distinct on (k) text from (
            select query_key as k, query as text, at from rep_history where query <> ${MARKET_SERIES} and left(query_key, ${prefixKey.length}) = ${prefixKey}
            union all
            select name_key, name, at from rep_history where name is not null and name <> '' and left(name_key, ${prefixKey.length}) = ${prefixKey}
          ) spellings order by k, at desc`;
        return rows.map((row) => row.text).sort(compareNames);
      }),

    prune: (before) =>
      run('prune the history', async (sql) => {
        const result = await sql`delete from rep_history where at < ${new Date(before).toISOString()}::timestamptz`;
        return result.count;
      }),

    stats: () =>
      run('read the history', async (sql): Promise<HistoryStats> => {
        const [row] = await sql<Array<{ points: number; bytes: number; oldest: Date | null }>>`
          select count(*)::int as points, pg_total_relation_size('rep_history')::float8 as bytes, min(at) as oldest from rep_history`;
        return { points: row?.points ?? 0, bytes: row?.bytes ?? 0, ...(row?.oldest ? { oldest: row.oldest.toISOString() } : {}), where };
      }),
  };
}

function pointOf(row: PointRow): HistoryPoint {
  return {
    id: row.id,
    at: row.at.toISOString(),
    base_url: row.base_url,
    query: row.query,
    ...(row.name === null ? {} : { name: row.name }),
    score: row.score,
    ...(row.scale === null ? {} : { scale: row.scale }),
    sources: row.sources,
  };
}
