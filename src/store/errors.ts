// A store that cannot be reached or refuses: exit 8 where a command needs the store (history, gates,
// import). Messages name the store by host, database and user; never by its password.
import { ExitCode, RepError } from '../api/errors.js';

export type StoreFailure = 'unreachable' | 'password' | 'refused' | 'permission' | 'timeout' | 'dropped' | 'schema' | 'other';

export class StoreError extends RepError {
  override readonly name = 'StoreError';
  readonly exitCode = ExitCode.store;
  readonly failure: StoreFailure;
  /** The store has warned of this failure already (once a run): callers going on without it need not again. */
  told = false;
  constructor(message: string, failure: StoreFailure, options?: { hint?: string; cause?: unknown }) {
    super(message, options);
    this.failure = failure;
  }
}

/** Whether a failure was already told to the user by the store itself (one line per failure, not one per caller). */
export function alreadyTold(error: unknown): boolean {
  return error instanceof StoreError && error.told;
}
