// `rep history import`'s work: a history.jsonl of today's format, and a local store's history folder,
// copied into the PostgreSQL store; importing twice adds nothing and points keep their ids.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importHistory } from '../src/store/import.js';
import { openLocalHistory } from '../src/store/local/history.js';
import { openStore } from '../src/store/open.js';
import { point } from './store-contract.js';
import { ADMIN_PASSWORD, postgresAvailable, sharedPostgres, type PostgresCluster } from './helpers/postgres.js';

const available = postgresAvailable();
let cluster: PostgresCluster;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rep-import-'));
  if (available) cluster = await sharedPostgres();
}, 60_000);
afterAll(() => {
  cluster?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-03-01T08:00:00Z');

describe.skipIf(!available)('importing a local history into the PostgreSQL store', () => {
  it('copies a history.jsonl and a history folder; twice adds nothing; ids and fields are kept', async () => {
    const fromFile = [point('Blue Bottle', T0, 80, { name: 'Blue Bottle Coffee', scale: 100 }), point('Tartine', T0, 70)];
    const file = join(dir, 'history.jsonl');
    writeFileSync(file, `${fromFile.map((p) => JSON.stringify(p)).join('\n')}\nnot a point\n`);
    const folder = join(dir, 'history');
    const fromFolder = [point('Blue Bottle', T0 + 86_400_000, 82), fromFile[1]!];
    await openLocalHistory(folder).append(fromFolder);

    const store = openStore(cluster.url(await cluster.createDatabase()), { env: { PGPASSWORD: ADMIN_PASSWORD }, machine: 'importer' });
    try {
      expect(await importHistory(file, store.history)).toEqual({ read: 2, added: 2, corrupt: 1 });
      expect(await importHistory(folder, store.history)).toEqual({ read: 2, added: 1, corrupt: 0 });
      expect(await importHistory(file, store.history)).toEqual({ read: 2, added: 0, corrupt: 1 });
      expect(await store.history.range({ key: 'blue bottle' })).toEqual([fromFile[0], fromFolder[0]]);
      expect((await store.history.stats()).points).toBe(3);
    } finally {
      await store.close();
    }
  });
});
