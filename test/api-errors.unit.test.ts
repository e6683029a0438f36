// The library's errors (src/api/errors.ts): each kind names itself in so many letters (the CLI's
// bundle is minified) and carries its exit code; searchWord picks the word a "not found" hint searches by.
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  InterruptedError,
  NetworkError,
  NotCachedError,
  NotFoundError,
  RateLimitError,
  type RepError,
  searchWord,
  UsageError,
} from '../src/api/errors.js';

describe('RepError kinds', () => {
  // Made inside each test: an error built while the file loads would escape the mutation run's view.
  it.each<[string, number, () => RepError]>([
    ['UsageError', 2, () => new UsageError('an empty name')],
    ['AuthError', 4, () => new AuthError('the key was rejected')],
    ['NotFoundError', 3, () => new NotFoundError('no such company')],
    ['ApiError', 1, () => new ApiError('the server failed', { status: 502 })],
    ['RateLimitError', 5, () => new RateLimitError('the rate limit is spent', {})],
    ['NetworkError', 6, () => new NetworkError('connection refused')],
    ['NotCachedError', 1, () => new NotCachedError('nothing cached')],
    ['InterruptedError', 130, () => new InterruptedError()],
  ])('%s names itself so and exits %i', (name, exitCode, make) => {
    const error = make();
    expect(error.name).toBe(name);
    expect(String(error)).toBe(`${name}: ${error.message}`);
    expect(error.exitCode).toBe(exitCode);
  });

  it('an interruption says so; the details a kind was not given have their defaults', () => {
    expect(new InterruptedError().message).toBe('interrupted');
    const api = new ApiError('bad', { status: 500 });
    expect([api.status, api.headers, api.bodyExcerpt]).toEqual([500, {}, '']);
    expect(new RateLimitError('spent', {}).resetFromServer).toBe(false);
    expect(new NetworkError('reset').retryable).toBe(true);
    expect(new NetworkError('bad certificate', { retryable: false }).retryable).toBe(false);
  });
});

describe('searchWord', () => {
  it.each([
    ['the longest word of several', 'Acme Widget Co', 'Widget'],
    ['the first of equally long words', 'Acme Corp', 'Acme'],
    ['words split at anything but letters, digits and name punctuation', "O'Brien & Sons, Ltd.", "O'Brien"],
    ['the start of a lone long word (a typo is rarely in its first letters)', 'Acmeburg', 'Acme'],
    ['a lone word of five letters, whole', 'Acmes', 'Acmes'],
    ['a lone word of six letters, its first four', 'Acmeco', 'Acme'],
    ['a lone word with punctuation around it', '"Acmeburg!"', 'Acme'],
    ['letters counted as characters, not UTF-16 units', '𝔸𝔹ℂ𝔻𝔼𝔽', '𝔸𝔹ℂ𝔻'],
    ['a lone word of four astral letters, whole', '𝔸𝔹ℂ𝔻', '𝔸𝔹ℂ𝔻'],
    ['a name without a word, as it is', '!!!', '!!!'],
    ['an empty name, empty', '', ''],
  ])('%s', (_, name, word) => {
    expect(searchWord(name)).toBe(word);
  });
});
