// The dependency container handed to every command's `run(opts, deps)`. Everything in it that costs
// start-up time (config, HTTP client) is built lazily, on first use, so `--help` and `--version` pay nothing.
import type { Abortable } from './api/abort-link.js';
import type { RepClient } from './api/client.js';
import type { RepPaths } from './config/paths.js';
import type { Settings } from './config/settings.js';
import type { IO } from './io.js';
import type { Store } from './store/port.js';

export type Format = 'table' | 'json' | 'ndjson' | 'csv' | 'markdown';

/** The global options, after commander has parsed them (accepted before or after the command). */
export interface GlobalOptions {
  baseUrl?: string;
  format?: Format;
  /** `--json`: the same as `--format json`, and it wins over `--format`. */
  json: boolean;
  /** `--bom`: CSV starts with a UTF-8 byte-order mark. */
  bom: boolean;
  /** false when `--no-color` was given. */
  color: boolean;
  /** Seconds per attempt. */
  timeout: number;
  retries: number;
  wait: boolean;
  /** Milliseconds. */
  maxWait: number;
  /** `--max-age` in milliseconds, when given (REP_MAX_AGE and the default apply otherwise). */
  maxAge?: number;
  /** false when `--no-cache` was given. */
  cache: boolean;
  debug: boolean;
  quiet: boolean;
  sandbox: boolean;
  /** `--store URL` (never with a password): the store for this run. */
  store?: string;
  /** `--fields name,score`: the named fields of the normalised records, checked against output/field-names.ts. */
  fields?: string[];
  /** `--query EXPR`: JMESPath over the JSON document that would be printed (output/query.ts). */
  query?: string;
  /** `--profile NAME`, when given (REP_PROFILE and the default profile apply otherwise). */
  profile?: string;
}

export interface Deps {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  now(): number;
  /**
   * Aborted on Ctrl-C, SIGTERM, SIGHUP or SIGQUIT: stop sending, end with exit 130. A signal, or a link
   * whose AbortSignal is made only for who needs one (`signalOf`): a run answered from the cache asks
   * only `aborted`.
   */
  signal: Abortable;
  /**
   * Aborted when a second signal ends the process at once: onExit cleanups will not run, so a listener
   * closes what must not be left open (a JSON array), synchronously.
   */
  exiting: Abortable;
  /** Says a long loop (a batch) starts: the CLI then keeps V8's heap closer to what is live (cli.ts). */
  longRun(): void;
  /** Writes one `--debug` line to stderr (no-op without `--debug`). Callers never pass the key. */
  debug(line: string): void;
  /** Writes a warning line to stderr (`rep: warning: …`), at most once per distinct text; silent under --quiet. */
  warn(text: string): void;
  /** The output format: `--format`/`--json`, else table on a terminal and json when piped. */
  format(): Format;
  /** Base URL and key with where each came from (flag > env > config). Throws ConfigError for a broken file. */
  settings(): Promise<Settings>;
  /** The API client for the resolved settings; under `--sandbox` it talks to an in-process sandbox. */
  client(): Promise<RepClient>;
  /** A client for other settings than the resolved ones: `login` verifies a key before storing it. */
  clientFor(settings: Settings): Promise<RepClient>;
  /** Registers cleanup to run before exit, in reverse order (closing servers, flushing state). */
  onExit(cleanup: () => Promise<void> | void): void;
  /** Where rep's files live (config, state, cache). */
  paths(): RepPaths;
  /** rep's memory (answers, request ledger, history), opened on first use and closed at exit: the profile's, or under --sandbox the sandbox's own (context.ts's openStore decides). */
  store(): Store;
  /**
   * The base URL this run's answers, requests and points are filed under in the store: under --sandbox
   * its one identity, whatever port it listens on (no sandbox is started for it); else the resolved
   * base URL's key; undefined when none is set.
   */
  storeBaseUrl(): Promise<string | undefined>;
}
