// The team store's history retries a statement once when the connection went away under it
// (src/store/postgres/history.ts). Whatever the retry meets, connecting again included, reaches the
// caller as the store's own error (a StoreError: exit 8, told once), never as the driver's raw one.
// The connection is a function the module is given, so this checks the retry's paths alone; the
// store's behaviour against a real database is in store-postgres-*.test.ts.
import { describe, expect, it } from 'vitest';
import { StoreError } from '../src/store/errors.js';
import { postgresHistory } from '../src/store/postgres/history.js';

const lost = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
const failure = (error: unknown, doing: string) => new StoreError(`the store failed to ${doing}: ${(error as Error).message}`, 'other', { cause: error });

describe('the team store history: a statement whose connection went away', () => {
  it('fails as the store when connecting again fails too', async () => {
    let asked = 0;
    // The first connection is lost under the statement; the second cannot be made.
    const sql = async () => {
      asked += 1;
      if (asked > 1) throw lost();
      // A tagged template whose statement, once awaited, fails as a lost connection does (its fragments,
      // never awaited, fail nothing), and its sql.unsafe.
      // biome-ignore lint/suspicious/noThenProperty: a statement is a thenable that runs when awaited, as Postgres.js's are
      const statement = () => ({ then: (_: unknown, reject: (error: Error) => void) => reject(lost()) });
      return Object.assign(statement, { unsafe: () => '' }) as never;
    };
    const history = postgresHistory({ sql, failure, machine: () => 'm', where: 'test' });
    const error = await history.range({ key: 'acme' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect([asked, (error as StoreError).message]).toEqual([2, 'the store failed to read the history: write EPIPE']);
  });
});
