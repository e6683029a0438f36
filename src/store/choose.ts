// Which store a run uses, in one place: `--store URL` > REP_STORE > the config file's `store` > local
// files (none of these). Imports nothing heavy: the program checks `--store` with it at parse time.
import { UsageError } from '../api/errors.js';
import { hasControlCharacter } from '../text.js';

export type StoreSource = 'flag' | 'env' | 'config';

export interface StoreChoice {
  url: string;
  source: StoreSource;
}

/**
 * The store URL a run uses, if any. A password in `--store` is refused: the command line is what `ps`
 * and shell history show, so it comes from REP_STORE, the config file, PGPASSWORD or ~/.pgpass.
 */
export function chooseStoreUrl({ flag, env, config }: { flag?: string; env: Record<string, string | undefined>; config?: string }): StoreChoice | undefined {
  const candidates: Array<[StoreSource, string | undefined]> = [
    ['flag', flag],
    ['env', env.REP_STORE],
    ['config', config],
  ];
  for (const [source, value] of candidates) {
    const url = value?.trim();
    if (!url) continue;
    // `…/rep\nstaging` was the database repstaging (text.ts, hasControlCharacter).
    if (hasControlCharacter(url))
      throw new UsageError(`${SOURCE_NAMES[source]} holds a tab or line break: it is no URL`, { hint: 'give one URL, such as postgres://user@host/db' });
    if (!/^postgres(ql)?:\/\//i.test(url))
      throw new UsageError(`${SOURCE_NAMES[source]} must be a postgres:// or postgresql:// URL`, { hint: 'leave it unset to keep the local store' });
    if (source === 'flag' && passwordIn(url))
      throw new UsageError('--store must not carry a password: the command line is visible to other processes', {
        hint: 'put the URL in REP_STORE, or the password in PGPASSWORD or ~/.pgpass',
      });
    return { url, source };
  }
  return undefined;
}

const SOURCE_NAMES: Record<StoreSource, string> = { flag: '--store', env: 'REP_STORE', config: "the config file's store" };

function passwordIn(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}
