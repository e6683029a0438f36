// The retry policy in one place (ky's source/types/retry.ts is the model): GET is idempotent, so network
// errors and 500/502/503/504 are retried with exponential backoff and full jitter, honouring Retry-After.
// No other 4xx is retried. Pure: the client (client.ts) sleeps and counts attempts.

export const RETRY_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);
export const BACKOFF_BASE_MS = 300;
export const BACKOFF_CAP_MS = 8000;
/** A Retry-After longer than this on a 5xx is not waited for: the error is reported instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * The delay before retry number `retry` (1-based): Retry-After when the server gave one (undefined
 * when it is too far away to wait for), else full jitter over min(cap, base * 2^(retry-1)).
 */
export function retryDelay(retry: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs > MAX_RETRY_AFTER_MS ? undefined : Math.max(0, retryAfterMs);
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}
