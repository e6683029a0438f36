// What commands see of the HTTP layer: one GET per endpoint, answered with a parsed JSON body or a typed error.

export type Endpoint = 'audit' | 'search' | 'pulse';

export interface ApiResponse {
  status: number;
  /** Response headers, lower-cased names. */
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: unknown;
}

export interface ApiClient {
  /**
   * GET `{baseUrl}/{endpoint}` with `q` when given. Resolves with a 2xx JSON answer; otherwise throws
   * a typed error from src/errors.ts (NotFoundError for an unknown company, RateLimitError, AuthError, …).
   */
  get(endpoint: Endpoint, q?: string, options?: CallOptions): Promise<ApiResponse>;
}

export interface CallOptions {
  /** Aborts this one call (a batch stops when stdout closes). */
  signal?: AbortSignal;
  /** Told when a `--wait` rate-limit wait starts (true) and ends (false): its countdown owns the line. */
  onWait?: (waiting: boolean) => void;
}
