// `--sandbox` never touches the real config, and login and logout exist to change it: under
// `--sandbox` they refuse (exit 2) before reading anything, rather than pretend on a throwaway config.
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';

const HINTS = {
  login: 'the sandbox needs no key: run a command with it, e.g. `rep --sandbox pulse`; drop --sandbox to log in',
  logout: 'drop --sandbox to remove the stored key',
};

export function refuseUnderSandbox(deps: Deps, command: 'login' | 'logout'): void {
  if (!deps.globals.sandbox) return;
  const verb = command === 'login' ? 'log in' : 'log out';
  throw new UsageError(`--sandbox does not ${verb}: it needs no key and never touches the config file`, { hint: HINTS[command] });
}
