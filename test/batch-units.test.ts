// The batch's pure parts: the compact answer cache and the tally behind the summary line and exit code.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../src/batch/cache.js';
import { openNames } from '../src/batch/input.js';
import { BatchError, BatchTally, NOT_AUDITED, type Outcome } from '../src/batch/outcome.js';
import { RateLimitError } from '../src/errors.js';

describe('AnswerCache', () => {
  it('gives back what it kept: JSON text, an error, not audited', () => {
    const cache = new AnswerCache<string>();
    const outcomes: Record<string, Outcome> = {
      a: { text: '{"score":1}' },
      b: { error: { exit: 3, message: 'no company named "b c"' } },
      c: NOT_AUDITED,
    };
    for (const [name, outcome] of Object.entries(outcomes)) {
      cache.start(name);
      expect(cache.get(name)).toBe('pending');
      cache.wait(name, `${name}-dup`);
      expect(cache.settle(name, outcome)).toEqual([`${name}-dup`]);
      expect(cache.get(name)).toEqual(outcome);
    }
  });

  it('stops keeping answers past its budget, so memory stays flat', () => {
    const cache = new AnswerCache<string>(400);
    cache.start('first');
    cache.settle('first', { text: 'x'.repeat(50) });
    cache.start('second');
    cache.settle('second', { text: 'y'.repeat(200) });
    expect(cache.get('first')).toEqual({ text: 'x'.repeat(50) });
    expect(cache.get('second')).toBeUndefined();
  });
});

describe('BatchTally and BatchError', () => {
  it('counts kinds, and the first failure in input order sets the exit code', () => {
    const tally = new BatchTally();
    for (const outcome of [{ text: '{}' }, { error: { exit: 6, message: 'refused' } }, { error: { exit: 3, message: 'nope' } }] as Outcome[]) tally.count(outcome);
    expect(tally.summaryLine()).toBe('3 names: 1 audited, 1 not found, 1 failed');
    const error = BatchError.from(tally, undefined);
    expect([error?.exitCode, error?.message]).toEqual([6, '2 of 3 names not audited: 1 not found, 1 failed']);
  });

  it('a rate limit wins with exit 5 and reuses the limit message', () => {
    const tally = new BatchTally();
    for (const outcome of [{ error: { exit: 3, message: 'nope' } }, NOT_AUDITED, NOT_AUDITED] as Outcome[]) tally.count(outcome);
    const limit = new RateLimitError('rate limit reached: 100 requests per hour; resets in 14 min (at 18:42)', { hint: 'use --wait' });
    const error = BatchError.from(tally, limit);
    expect([error?.exitCode, error?.message, error?.hint]).toEqual([5, 'rate limit reached: 3 of 3 names not audited (1 not found, 2 rate limited); 100 requests per hour; resets in 14 min (at 18:42)', 'use --wait']);
  });

  it('no failures, no error', () => {
    const tally = new BatchTally();
    tally.count({ text: '{}' });
    expect(BatchError.from(tally, undefined)).toBeUndefined();
  });
});

describe('openNames', () => {
  it('streams names from arguments then stdin: trimmed, blanks and comments skipped', async () => {
    const stdin = Readable.from(['\uFEFFone\r\n', '  # note\n\n two \n', 'three']);
    const names: string[] = [];
    for await (const name of await openNames({ args: ['zero', '-'], stdin, stdinIsTTY: false })) names.push(name);
    expect(names).toEqual(['zero', 'one', 'two', 'three']);
  });
});
