// `--sandbox` promises to write no file, and login and logout exist to change the config file: under
// `--sandbox` they refuse (exit 2) before reading anything, rather than pretend on a throwaway store.
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';

const HINTS = {
  login: 'the sandbox needs no key: run a command with it, e.g. `rep --sandbox pulse`; drop --sandbox to log in',
  logout: 'drop --sandbox to remove the stored key',
};

export function refuseUnderSandbox(deps: Deps, command: 'login' | 'logout'): void {
  if (!deps.globals.sandbox) return;
  const verb = command === 'login' ? 'log in' : 'log out';
  throw new UsageError(`--sandbox does not ${verb}: it needs no key and writes no files`, { hint: HINTS[command] });
}
