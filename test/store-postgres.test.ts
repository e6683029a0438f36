// The store contract on the PostgreSQL store, against a real cluster (test/helpers/postgres.ts): a
// fresh database per test, and `again()` a second store on it as another machine would open it.
import { afterAll, beforeAll, describe } from 'vitest';
import { openPostgresStore } from '../src/store/postgres/index.js';
import { parseStoreUrl } from '../src/store/postgres/url.js';
import { storeContract } from './store-contract.js';
import { ADMIN_PASSWORD, postgresAvailable, sharedPostgres, type PostgresCluster } from './helpers/postgres.js';

const available = postgresAvailable();
let cluster: PostgresCluster;
let database: string | undefined;
let machines = 0;

beforeAll(async () => {
  if (available) cluster = await sharedPostgres();
}, 60_000);
afterAll(() => cluster?.cleanup());

const storeOn = (name: string) =>
  openPostgresStore({ target: parseStoreUrl(cluster.url(name), { PGPASSWORD: ADMIN_PASSWORD }), machine: `machine-${++machines}` });

describe.skipIf(!available)('PostgreSQL store', () => {
  storeContract('postgres', {
    async open() {
      database = await cluster.createDatabase();
      return storeOn(database);
    },
    async again() {
      return storeOn(database!);
    },
    async cleanup() {
      database = undefined;
    },
  });
});
