// The library's public face: `import { createClient, RepError } from 'rep-cli'`. The CLI is built on the
// same client; nothing here prints, reads a config file or looks at the environment unless asked.
export {
  createClient,
  type CacheEvent,
  type ClientStore,
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
// rep's memory: give createClient({ store }) the CLI's own (openLocalStore(localStoreOptions(process.env)))
// to share its cache, request count and history; close() it when done.
export { localStoreOptions, openLocalStore, type LocalStoreOptions } from './store/local/index.js';
export type * from './store/port.js';
export { MARKET_SERIES } from './store/port.js';
// A team's store on PostgreSQL: createClient({ store: openStore(process.env.REP_STORE) }).
export { openStore, type OpenStoreOptions } from './store/open.js';
export { StoreError } from './store/errors.js';
