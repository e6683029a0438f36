// Where the answer cache lives and how old an answer it may give, with the contract's precedence:
// flag > environment > default. Pure, like settings.ts: the caller passes the flag, env and paths.
import { readDuration } from '../time.js';
import { UsageError } from '../errors.js';

/** An answer younger than this is used with no request, unless --max-age or REP_MAX_AGE says otherwise. */
export const DEFAULT_MAX_AGE_MS = 15 * 60 * 1000;

/** `--max-age` (already parsed, ms) > REP_MAX_AGE > 15 minutes; 0 means always fetch. A bad REP_MAX_AGE is a usage error. */
export function maxAgeFrom(flag: number | undefined, env: NodeJS.ProcessEnv): number {
  if (flag !== undefined) return flag;
  const value = env.REP_MAX_AGE;
  if (value === undefined || value.trim() === '') return DEFAULT_MAX_AGE_MS;
  try {
    return readDuration(value);
  } catch (error) {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    throw new UsageError(`REP_MAX_AGE is not a duration (${shown}): ${(error as Error).message}`, {
      hint: 'set it like --max-age (0 always fetches), or unset it for the default of 15m',
    });
  }
}

export { cacheDirFrom } from './paths.js';
