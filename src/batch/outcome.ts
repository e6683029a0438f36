// What became of each name in a batch, the tally behind the summary line, and the one error a batch
// with failures ends with (so stdout keeps every record and stderr gets one `rep:` line). One set of
// words for both: a name is audited, or not audited because it was not found, failed, or rate limited.
import { ExitCode, RepError, type ExitCodeValue, type RateLimitError } from '../errors.js';

export const NOT_AUDITED_MESSAGE = 'not audited: rate limit reached';

/** A name's answer, kept compactly: the body as JSON text, or the error's code and message. */
export type Outcome = { text: string; cached?: true } | { error: { exit: ExitCodeValue; message: string }; notAudited?: true };

export const NOT_AUDITED: Outcome = { error: { exit: ExitCode.rateLimited, message: NOT_AUDITED_MESSAGE }, notAudited: true };

export class BatchTally {
  total = 0;
  audited = 0;
  /** Of the audited, how many answers came from the answer cache (no request). */
  fromCache = 0;
  notFound = 0;
  failed = 0;
  rateLimited = 0;
  /** The exit code of the first failure in input order. */
  firstFailure: ExitCodeValue | undefined;

  count(outcome: Outcome): void {
    this.total += 1;
    if ('text' in outcome) {
      this.audited += 1;
      if (outcome.cached) this.fromCache += 1;
    } else if (outcome.notAudited) this.rateLimited += 1;
    else if (outcome.error.exit === ExitCode.notFound) this.notFound += 1;
    else this.failed += 1;
    if ('error' in outcome) this.firstFailure ??= outcome.error.exit;
  }

  /** `5 names: 4 audited, 1 not found`: the kinds with no name in them are left out. */
  summaryLine(): string {
    const audited = `${this.audited} audited${this.fromCache > 0 ? ` (${this.fromCache} from the cache)` : ''}`;
    return `${namesCount(this.total)}: ${[audited, ...this.#unaudited().map(counted)].join(', ')}`;
  }

  /** Why names were not audited, in the summary's words: `not found`, or `1 not found, 2 failed` for several kinds. */
  whyNotAudited(): string {
    const kinds = this.#unaudited();
    return kinds.length === 1 ? (kinds[0]?.word ?? '') : kinds.map(counted).join(', ');
  }

  #unaudited(): Array<{ count: number; word: string }> {
    const kinds = [
      { count: this.notFound, word: 'not found' },
      { count: this.failed, word: 'failed' },
      { count: this.rateLimited, word: 'rate limited' },
    ];
    return kinds.filter((kind) => kind.count > 0);
  }
}

const counted = (kind: { count: number; word: string }) => `${kind.count} ${kind.word}`;

function namesCount(count: number): string {
  return `${count} ${count === 1 ? 'name' : 'names'}`;
}

/** A batch that did not fully succeed: exit 5 when a rate limit stopped it, else its first failure's code. */
export class BatchError extends RepError {
  override readonly name = 'BatchError';
  readonly exitCode: ExitCodeValue;

  constructor(message: string, exitCode: ExitCodeValue, hint?: string) {
    super(message, hint === undefined ? undefined : { hint });
    this.exitCode = exitCode;
  }

  /**
   * The error to end a batch with, or undefined when every name succeeded. `hint` replaces the
   * usual one (which points at the records).
   */
  static from(tally: BatchTally, rateLimit: RateLimitError | undefined, hint?: string): BatchError | undefined {
    const notAudited = `${tally.total - tally.audited} of ${namesCount(tally.total)} not audited`;
    if (rateLimit) {
      // The client's message already says the limit and when it resets; say what it cost the batch.
      const what = rateLimit.message.replace(/^rate limit reached: ?/, '');
      const why = tally.rateLimited === tally.total - tally.audited ? '' : ` (${tally.whyNotAudited()})`;
      const error = new BatchError(`rate limit reached: ${notAudited}${why}; ${what}`, ExitCode.rateLimited, rateLimit.hint);
      if (rateLimit.reason) error.reason = rateLimit.reason; // the CLI words the hint (errors.ts)
      return error;
    }
    if (tally.firstFailure === undefined) return undefined;
    return new BatchError(
      `${notAudited}: ${tally.whyNotAudited()}`,
      tally.firstFailure,
      hint ?? 'each name\'s record says why (its "error" field; Status in a table)',
    );
  }
}
