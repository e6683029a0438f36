// rep's tables, created and migrated by rep: numbered steps, forward only, each in its own
// transaction under one advisory lock, so ten processes starting on an empty database make them once.
// docs/store-schema.md documents them for SQL users: a step may add, never rename or drop what is there.
import type { Sql } from 'postgres';
import { StoreError } from '../errors.js';

/** The advisory lock key of migrations ('rep:schema' as a number). */
export const MIGRATION_LOCK = 0x7265_7073;

const STEPS: readonly string[] = [
  // 1: answers, the request ledger and its rate-limit facts, the history.
  `create table rep_answers (
     base_url text not null,
     endpoint text not null,
     key_fingerprint text not null,
     query text not null,
     status smallint not null,
     body text not null,
     content_type text,
     stored_at timestamptz not null,
     fresh_until timestamptz,
     machine text not null,
     primary key (base_url, endpoint, key_fingerprint, query)
   );
   create table rep_requests (
     key_fingerprint text not null,
     base_url text not null,
     sent_at timestamptz not null,
     machine text not null,
     run text not null
   );
   create index rep_requests_scope on rep_requests (key_fingerprint, base_url, sent_at);
   create table rep_rate_limits (
     key_fingerprint text not null,
     base_url text not null,
     rate_limit integer,
     remaining integer,
     reset_at timestamptz,
     window_seconds integer,
     seen_at timestamptz not null,
     primary key (key_fingerprint, base_url)
   );
   create table rep_history (
     id text primary key,
     at timestamptz not null,
     base_url text not null,
     query text not null,
     name text,
     score double precision not null,
     scale double precision,
     sources jsonb not null default '[]',
     query_key text not null,
     name_key text not null,
     machine text,
     recorded_at timestamptz not null default now()
   );
   create index rep_history_query on rep_history (base_url, query_key, at);
   create index rep_history_name on rep_history (name_key, at);
   create index rep_history_query_any on rep_history (query_key, at);
   create index rep_history_at on rep_history (at);`,
];

/** The schema version this rep writes. */
export const SCHEMA_VERSION = STEPS.length;

/** The schema's version (null: none applied), as a store's first read asks it (session.ts). */
export const VERSION_QUERY = 'select max(version) as version from rep_schema_version';

/** Brings the database's schema to SCHEMA_VERSION, or refuses one newer than this rep knows; `current` when read already. */
export async function migrate(sql: Sql, current?: number): Promise<void> {
  current ??= await readVersion(sql);
  if (current === SCHEMA_VERSION) return;
  refuseNewer(current);
  for (;;) {
    const done = await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await tx`create table if not exists rep_schema_version (version integer not null, applied_at timestamptz not null default now())`;
      const [row] = await tx<Array<{ version: number | null }>>`select max(version) as version from rep_schema_version`;
      const version = row?.version ?? 0;
      refuseNewer(version);
      if (version >= SCHEMA_VERSION) return true;
      await tx.unsafe(STEPS[version]!);
      await tx`insert into rep_schema_version (version) values (${version + 1})`;
      return version + 1 >= SCHEMA_VERSION;
    });
    if (done) return;
  }
}

/** The version of the schema in the database (0: none yet), in one round trip, without writing (a read-only role can). */
async function readVersion(sql: Sql): Promise<number> {
  try {
    const [row] = await sql.unsafe<Array<{ version: number | null }>>(VERSION_QUERY);
    return row?.version ?? 0;
  } catch (error) {
    if ((error as { code?: unknown }).code === '42P01') return 0; // no such table: an empty database
    throw error;
  }
}

function refuseNewer(version: number): void {
  if (version > SCHEMA_VERSION)
    throw new StoreError(`the store's schema is version ${version}, newer than this rep knows (version ${SCHEMA_VERSION})`, 'schema', {
      hint: 'upgrade rep on this machine (`npm install -g rep-cli@latest`)',
    });
}
