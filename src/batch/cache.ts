// Answers by name, so a duplicate name in a batch is sent once: while the first request is in flight
// later duplicates wait on it; once answered they reuse its compact outcome (JSON text or error).
import type { Outcome } from './outcome.js';

/** Past this many characters of kept answers, new answers are not kept (a far duplicate is re-sent). */
export const ANSWER_BUDGET_CHARS = 16 * 1024 * 1024;

export class AnswerCache<Waiter> {
  readonly #pending = new Map<string, Waiter[]>();
  readonly #answers = new Map<string, Outcome>();
  #chars = 0;

  constructor(readonly budgetChars = ANSWER_BUDGET_CHARS) {}

  get(name: string): Outcome | 'pending' | undefined {
    return this.#pending.has(name) ? 'pending' : this.#answers.get(name);
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
    const chars = name.length + ('text' in outcome ? outcome.text.length : outcome.error.message.length);
    if (this.#chars + chars <= this.budgetChars) {
      this.#answers.set(name, outcome);
      this.#chars += chars;
    }
    return waiting;
  }
}
