// What became of each name in a batch, the tally behind the summary line, and the one error a batch
// with failures ends with (so stdout keeps every record and stderr gets one `rep:` line).
import { ExitCode, RepError, type ExitCodeValue, type RateLimitError } from '../errors.js';

export const NOT_AUDITED_MESSAGE = 'not audited: rate limit reached';

/** A name's answer, kept compactly: the body as JSON text, or the error's code and message. */
export type Outcome = { text: string } | { error: { exit: ExitCodeValue; message: string }; notAudited?: true };

export const NOT_AUDITED: Outcome = { error: { exit: ExitCode.rateLimited, message: NOT_AUDITED_MESSAGE }, notAudited: true };

export class BatchTally {
  total = 0;
  audited = 0;
  notFound = 0;
  failed = 0;
  notAudited = 0;
  /** The exit code of the first failure in input order. */
  firstFailure: ExitCodeValue | undefined;

  count(outcome: Outcome): void {
    this.total += 1;
    if ('text' in outcome) this.audited += 1;
    else if (outcome.notAudited) this.notAudited += 1;
    else if (outcome.error.exit === ExitCode.notFound) this.notFound += 1;
    else this.failed += 1;
    if ('error' in outcome) this.firstFailure ??= outcome.error.exit;
  }

  /** `audited 8, not found 1, failed 0, not audited 3` */
  summaryLine(): string {
    return `audited ${this.audited}, not found ${this.notFound}, failed ${this.failed}, not audited ${this.notAudited}`;
  }
}

/** A batch that did not fully succeed: exit 5 when a rate limit stopped it, else its first failure's code. */
export class BatchError extends RepError {
  readonly exitCode: ExitCodeValue;

  constructor(message: string, exitCode: ExitCodeValue, hint?: string) {
    super(message, hint === undefined ? undefined : { hint });
    this.exitCode = exitCode;
  }

  /** The error to end a batch with, or undefined when every name succeeded. */
  static from(tally: BatchTally, rateLimit: RateLimitError | undefined): BatchError | undefined {
    const of = `of ${tally.total} ${tally.total === 1 ? 'name' : 'names'}`;
    if (rateLimit) {
      // The client's message already says the limit and when it resets; say what it cost the batch.
      const what = rateLimit.message.replace(/^rate limit reached: ?/, '');
      return new BatchError(`rate limit reached: ${tally.notAudited} ${of} not audited; ${what}`, ExitCode.rateLimited, rateLimit.hint);
    }
    if (tally.firstFailure === undefined) return undefined;
    const failures = tally.total - tally.audited;
    return new BatchError(`${failures} ${of} failed`, tally.firstFailure, 'the records on stdout say what failed for each name (an "error" field; Status in a table)');
  }
}
