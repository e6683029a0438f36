// The store's connections and its schema check. The pool connects on first use and the schema's
// version is checked once; when the store's first statement is a read (a cached audit's lookup), it
// goes with the check as one simple query: one round trip for both, where each was one of its own.
// Reads carry their values as literals, not parameters: Postgres.js asks the server to describe a
// statement with parameters before it sends them, a round trip more for each.
import type { Sql } from 'postgres';
import { connect, storeError, type ConnectOptions, type Pool } from './connect.js';
import { stopReading } from './early.js';
import { migrate, SCHEMA_VERSION, VERSION_QUERY } from './schema.js';
import type { StoreTarget } from './url.js';

export interface Session {
  /** The pool, its schema checked: migrated when older, refused when newer (every later call fails alike). */
  ready(): Promise<Sql>;
  /** The rows of one statement without parameters (values as literal() writes them). */
  read<T extends object>(text: string): Promise<T[]>;
  /** Ends the connections (Terminate sent); the database's own closing is not waited for. */
  end(): Promise<void>;
}

export function openSession(target: StoreTarget, options: ConnectOptions): Session {
  let connecting: Promise<Sql> | undefined;
  let checked: Promise<Sql> | undefined;
  let pool: Pool | undefined;
  const connection = () =>
    (connecting ??= connect(target, options).then((opened) => {
      pool = opened;
      return opened.sql;
    }));
  /** The check, kept; one that could not reach the database is forgotten, so a later call connects again. */
  const check = (checking: Promise<Sql>): Promise<Sql> => {
    const kept: Promise<Sql> = checking.catch((error: unknown) => {
      if (checked === kept && storeError(error, target, 'connect').failure === 'unreachable') checked = undefined;
      throw error;
    });
    checked = kept;
    return kept;
  };
  const ready = () =>
    checked ??
    check(
      connection().then(async (db) => {
        await migrate(db);
        return db;
      }),
    );
  return {
    ready,
    async read<T extends object>(text: string) {
      if (checked) return (await ready()).unsafe<T[]>(text);
      let first: T[] | undefined;
      const db = await check(
        (async () => {
          const db = await connection();
          let version = 0;
          try {
            const [versions, rows] = await db.unsafe<[Array<{ version: number | null }>, T[]]>(`${VERSION_QUERY};\n${text}`);
            version = versions?.[0]?.version ?? 0;
            if (version === SCHEMA_VERSION) first = rows;
          } catch (error) {
            if ((error as { code?: unknown }).code !== '42P01') throw error; // no such table: an empty database
          }
          await migrate(db, version);
          return db;
        })(),
      );
      return first ?? db.unsafe<T[]>(text);
    },
    async end() {
      if (!pool) return;
      // Each connection's Terminate goes out as end() begins, and a write under way holds the process
      // until it is out; the server's closing of the sockets, a round trip and more, is not waited for
      // (nor is a timer set to cut it short: it would hold the process as long).
      const ended = pool.sql.end().catch(() => undefined);
      for (const socket of pool.sockets) {
        socket.unref();
        stopReading(socket);
      }
      await Promise.race([ended, new Promise((resolve) => setImmediate(resolve))]);
    },
  };
}

/**
 * A string as an SQL literal (as libpq's PQescapeLiteral writes one): E'…' with quotes and backslashes
 * doubled, whatever standard_conforming_strings says. The connection's encoding is UTF8. Text with a
 * NUL cannot be sent in a statement (nor kept in a text column): callers leave it out.
 */
export function literal(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}
