// The batch's dedupe: a duplicate name is sent once. While the first request is in flight later
// duplicates wait on it; once answered they reuse its outcome, kept by name as one compact string.
import { ExitCode, type ExitCodeValue } from '../errors.js';
import { NOT_AUDITED, type Outcome } from './outcome.js';

/** Past this estimate of bytes kept, new answers are not kept (a far duplicate is sent again): memory stays flat. */
export const ANSWER_BUDGET_BYTES = 32 * 1024 * 1024;
/** What a Map entry and two string headers cost besides their characters (measured on V8, rounded up). */
const ENTRY_OVERHEAD_BYTES = 120;
/** JSON text never starts with `!`, so an error can share the string form. */
const ERROR_MARK = '!';

export class Dedupe<Waiter> {
  readonly #pending = new Map<string, Waiter[]>();
  readonly #answers = new Map<string, string>();
  #bytes = 0;

  constructor(readonly budgetBytes = ANSWER_BUDGET_BYTES) {}

  get(name: string): Outcome | 'pending' | undefined {
    if (this.#pending.has(name)) return 'pending';
    const kept = this.#answers.get(name);
    return kept === undefined ? undefined : decode(kept);
  }

  /** Marks a name as in flight. */
  start(name: string): void {
    this.#pending.set(name, []);
  }

  /** A duplicate of a name in flight: answered when the first one is. */
  wait(name: string, waiter: Waiter): void {
    this.#pending.get(name)?.push(waiter);
  }

  /** Keeps the answer (within the budget) and returns the duplicates that were waiting for it. */
  settle(name: string, outcome: Outcome): Waiter[] {
    const waiting = this.#pending.get(name) ?? [];
    this.#pending.delete(name);
    const kept = encode(outcome);
    const bytes = 2 * (name.length + kept.length) + ENTRY_OVERHEAD_BYTES; // two bytes a character at worst
    if (this.#bytes + bytes <= this.budgetBytes) {
      this.#answers.set(name, kept);
      this.#bytes += bytes;
    }
    return waiting;
  }
}

function encode(outcome: Outcome): string {
  if ('text' in outcome) return outcome.text;
  return outcome.notAudited ? ERROR_MARK : `${ERROR_MARK}${outcome.error.exit} ${outcome.error.message}`;
}

function decode(kept: string): Outcome {
  if (!kept.startsWith(ERROR_MARK)) return { text: kept };
  if (kept === ERROR_MARK) return NOT_AUDITED;
  const space = kept.indexOf(' ');
  const exit = Number(kept.slice(1, space)) as ExitCodeValue;
  return { error: { exit: Number.isInteger(exit) ? exit : ExitCode.error, message: kept.slice(space + 1) } };
}
