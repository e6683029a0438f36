// The library's public face: `import { createClient, RepError } from 'rep-cli'`. The CLI is built on the
// same client; nothing here prints, reads a config file or looks at the environment unless asked.
export {
  createClient,
  type AnswerStore,
  type AnswerStoreKey,
  type CacheEvent,
  type PutOutcome,
  type CallOptions,
  type ClientOptions,
  type LowQuotaEvent,
  type RateLimitWaitEvent,
  type RepClient,
  type RepHooks,
  type RepResult,
  type RequestEvent,
  type ResponseEvent,
  type RetryEvent,
} from './api/client.js';
export {
  ApiError,
  AuthError,
  ExitCode,
  InterruptedError,
  NetworkError,
  NotCachedError,
  NotFoundError,
  RateLimitError,
  RepError,
  UsageError,
  type ExitCodeValue,
} from './api/errors.js';
export type { RateLimitInfo } from './api/rate-limit.js';
export {
  auditView,
  pulseView,
  searchView,
  type AuditView,
  type DetailRow,
  type PulseView,
  type SearchGroup,
  type SearchView,
  type SourceRow,
} from './views/index.js';
export { openStore, type OpenStoreOptions } from './store/open.js';
export { StoreError } from './store/errors.js';
