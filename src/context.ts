// Builds the Deps container for one run. Config, the HTTP client and the in-process sandbox are
// created on first use, so commands pay only for what they touch.
import { readConfigFile, type StoredConfig } from './config/file.js';
import { home, repPaths, type RepPaths } from './config/paths.js';
import { resolveProfileSettings, type Settings } from './config/settings.js';
import { chooseProfile, dataScope, profileConfig, SANDBOX_IDENTITY, sandboxEnv, scopedPaths } from './config/profiles.js';
import { linkSignals, signalOf, type Abortable } from './api/abort-link.js';
import { createClient, type ClientOptions, type RepClient } from './api/client.js';
import { baseUrlKey } from './api/base-url.js';
import { requestsDir } from './state/requests.js';
import { cacheLimitsFrom, maxAgeFrom } from './config/cache-settings.js';
import { cacheDirFrom, historyPlace } from './config/paths.js';
import { openLocalStore } from './store/local/index.js';
import { chooseStoreUrl } from './store/choose.js';
import { openStore as openTeamStore } from './store/open.js';
import type { LedgerPort, LedgerScope, Store } from './store/port.js';
import type { Deps, Format, GlobalOptions } from './deps.js';
import { scrubLine } from './text.js';
import { AuthError, systemErrorText, UsageError, type HintContext } from './errors.js';
import { contextArgs } from './shell-quote.js';
import type { IO } from './io.js';
import { clientHooks } from './client-hooks.js';
import { VERSION } from './version.js';

export interface DepsInput {
  globals: GlobalOptions;
  io: IO;
  env: NodeJS.ProcessEnv;
  signal: Abortable;
  /** Aborted when the process exits at once; never, by default. */
  exiting?: Abortable;
  now?: () => number;
  /** See MainOptions.longRun; nothing, by default. */
  longRun?: () => void;
}

export function createDeps({ globals, io, env: given, signal, exiting = linkSignals([]), now = Date.now, longRun = () => {} }: DepsInput): {
  deps: Deps;
  cleanup: () => Promise<void>;
  /** What an error's hint needs of this run (the settings once resolved). */
  hintContext: () => HintContext;
} {
  // The sandbox never sees the variables that point at real data (config/profiles.ts).
  const env = globals.sandbox ? sandboxEnv(given) : given;
  const cleanups: Array<() => Promise<void> | void> = [];
  const warned = new Set<string>();
  let paths: RepPaths | undefined;
  let settings: Promise<Settings> | undefined;
  let resolved: Settings | undefined;
  let client: Promise<RepClient> | undefined;
  let store: Store | undefined;

  const deps: Deps = {
    io,
    env,
    globals,
    now,
    signal,
    exiting,
    longRun,
    // Debug lines quote the server (a redirect's Location, header values): scrubbed so they cannot drive a terminal.
    debug: globals.debug ? (line) => io.err(`debug: ${scrubLine(line)}\n`) : () => {},
    warn(text) {
      if (globals.quiet || warned.has(text)) return;
      warned.add(text);
      io.err(`rep: warning: ${text}\n`);
    },
    format: () => chooseFormat(globals, io),
    onExit: (cleanup) => void cleanups.push(cleanup),
    // A profile's or the sandbox's local data lives in a folder of its own: nothing mixes.
    paths: () => (paths ??= scopedPaths(repPaths(env, process.platform, deps.warn), dataScope(globals, env))),
    settings: () => (settings ??= (globals.sandbox ? startSandbox(deps) : loadSettings(deps)).then((found) => (resolved = found))),
    client: () => (client ??= deps.settings().then((settings) => clientFor(deps, settings))),
    clientFor: (settings) => clientFor(deps, settings),
    store: () => (store ??= openStore(deps)),
    storeBaseUrl: async () => storeBaseUrl(globals, globals.sandbox ? undefined : (await deps.settings()).baseUrl),
  };
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step();
    cleanups.length = 0;
  };
  const hintContext = (): HintContext => ({
    contextArgs: contextArgs(globals),
    ...(resolved ? { keySource: resolved.keySource, configPath: resolved.configPath } : {}),
  });
  return { deps, cleanup, hintContext };
}

/** `--json` (it wins over `--format`), else `--format`, else table on a terminal and json when piped. */
export function chooseFormat(globals: Partial<Pick<GlobalOptions, 'format' | 'json' | 'query'>>, io: Pick<IO, 'stdoutIsTTY'>): Format {
  if (globals.json) return 'json';
  // --query prints JSON: its result is no table.
  return globals.format ?? (io.stdoutIsTTY && globals.query === undefined ? 'table' : 'json');
}

const configs = new WeakMap<Deps, StoredConfig>();

/** The config file as this run first read it: the settings and the store's URL come from one read. */
function storedConfig(deps: Deps): StoredConfig {
  let stored = configs.get(deps);
  if (!stored) configs.set(deps, (stored = readConfigFile(deps.paths().configFile, deps.warn)));
  return stored;
}

async function loadSettings(deps: Deps): Promise<Settings> {
  const { configFile } = deps.paths();
  const stored = storedConfig(deps);
  const profile = chooseProfile(deps.globals.profile, deps.env);
  return resolveProfileSettings({ flagBaseUrl: deps.globals.baseUrl, env: deps.env, stored, configPath: configFile, profile });
}

/** `--sandbox`: an in-process sandbox on a free loopback port, for this one command; its data is that of deps.now()'s day. */
async function startSandbox(deps: Deps): Promise<Settings> {
  const { startSandbox: start } = await import('./sandbox/server.js');
  const sandbox = await start({ host: '127.0.0.1', port: 0, now: deps.now });
  deps.onExit(() => sandbox.close());
  deps.debug(`sandbox listening at ${sandbox.url}`);
  return { baseUrl: new URL(sandbox.url), baseUrlSource: 'sandbox', key: sandbox.key, keySource: 'sandbox', configPath: deps.paths().configFile };
}

/** An API client for the given settings (the resolved ones, or those `login` is about to store). */
async function clientFor(deps: Deps, settings: Settings): Promise<RepClient> {
  if (!settings.baseUrl) {
    throw new AuthError('no base URL is set', { hint: 'run `rep login --base-url URL`, set REP_BASE_URL, or try `--sandbox`' });
  }
  if (settings.baseUrl.protocol === 'https:' && deps.env.NODE_TLS_REJECT_UNAUTHORIZED === '0') {
    // Said even under --quiet: the key may be going to an impostor, which is no noise to hide.
    deps.io.err(
      'rep: warning: TLS certificate verification is off (NODE_TLS_REJECT_UNAUTHORIZED=0): ' +
        `the API key goes to any server that answers as ${settings.baseUrl.hostname}\n`,
    );
  }
  // The library client, given what the CLI resolved; what it tells, progress.ts shows.
  const client = createClient({
    baseUrl: settings.baseUrl,
    ...(settings.key ? { apiKey: settings.key } : {}),
    timeout: deps.globals.timeout,
    retries: deps.globals.retries,
    wait: deps.globals.wait,
    maxWait: deps.globals.maxWait / 1000,
    // Read by the client only as it sends: an answer from the cache makes no AbortSignal.
    get signal() {
      return signalOf(deps.signal);
    },
    hooks: clientHooks(deps),
    ...clientStoreFor(deps, settings),
    userAgent: `rep/${VERSION} (node ${process.version})`,
    env: deps.env,
    now: deps.now,
  });
  return settings.key ? client : warnOnAnswerWithoutKey(client, deps);
}

/**
 * The ONE place that decides which store a run uses: the team's PostgreSQL store when a URL is chosen
 * (--store, REP_STORE, the config's or the profile's `store`; src/store/choose.ts), else the local store
 * at this run's folders (a profile's own under --profile, the sandbox's own under --sandbox: deps.paths()
 * is scoped). At exit what the ledger holds is saved (a second signal's exit saves it sooner), then it is closed. */
export function openStore(deps: Deps): Store {
  const paths = deps.paths();
  const team = teamStoreUrl(deps);
  if (team) {
    // Its failures are told once where rep goes on without it (an answer, a count); close() settles what is pending.
    const shared = openTeamStore(team, { env: deps.env, home: home(deps.env), timeout: deps.globals.timeout, warn: deps.warn, connectNow: true });
    deps.onExit(() => shared.close());
    return shared;
  }
  const store = openLocalStore({
    cacheDir: cacheDirFrom(deps.env, paths),
    cacheLimits: cacheLimitsFrom(deps.env),
    stateDir: paths.stateDir,
    ...historyPlace(deps.env, paths.stateDir),
    warn: deps.warn,
    now: deps.now,
  });
  // A second signal's exit saves what the ledger holds (settle() saves synchronously before its first
  // await). Watched from the ledger's first record: a run answered from the cache has nothing to save,
  // and the run's first EventTarget listener costs ~0.2 ms on Node 20.
  let watching = false;
  const watchExit = () => {
    if (watching) return;
    watching = true;
    signalOf(deps.exiting).addEventListener('abort', () => void store.ledger.settle(), { once: true });
  };
  const ledger: LedgerPort = {
    ...store.ledger,
    record: (scope, at) => {
      watchExit();
      return store.ledger.record(scope, at);
    },
    ...(store.ledger.recordInTurn
      ? {
          recordInTurn: (scope: LedgerScope, at: number) => {
            watchExit();
            return store.ledger.recordInTurn!(scope, at);
          },
        }
      : {}),
    noteRateLimit: (scope, facts) => {
      watchExit();
      return store.ledger.noteRateLimit(scope, facts);
    },
  };
  deps.onExit(async () => {
    const failure = await store.ledger.settle();
    if (failure)
      deps.warn(`cannot save the request count in ${requestsDir(paths.stateDir)} (${systemErrorText(failure)}); \`rep status\` will not count these requests`);
    await store.close();
  });
  return { ...store, ledger };
}

/**
 * The team store's URL, if one is chosen: --store, REP_STORE, else the selected profile's `store` in the
 * config file. The sandbox never uses one: it keeps a store of its own (REP_STORE is not in its env).
 */
function teamStoreUrl(deps: Deps): string | undefined {
  if (deps.globals.sandbox) {
    if (deps.globals.store !== undefined)
      throw new UsageError('--store and --sandbox do not go together: the sandbox keeps a store of its own', { hint: 'drop one of them' });
    return undefined;
  }
  const flagOrEnv = chooseStoreUrl({ flag: deps.globals.store, env: deps.env });
  if (flagOrEnv) return flagOrEnv.url;
  const profile = chooseProfile(deps.globals.profile, deps.env).name;
  const stored = profileConfig(storedConfig(deps), profile)?.store;
  return chooseStoreUrl({ env: {}, config: stored })?.url;
}

/** What the client keeps, filed under storeBaseUrl's base URL: the ledger only under --no-cache; else answers too, for --max-age. */
export function clientStoreFor(deps: Deps, settings: Settings): Pick<ClientOptions, 'store' | 'maxAge' | 'storeBaseUrl'> {
  const store = deps.store();
  const filedUnder = settings.baseUrl ? storeBaseUrl(deps.globals, settings.baseUrl) : undefined;
  const under = filedUnder ? { storeBaseUrl: filedUnder } : {};
  if (deps.globals.cache === false) return { store: { ledger: store.ledger }, ...under };
  return { store, maxAge: maxAgeFrom(deps.globals.maxAge, deps.env) / 1000, ...under };
}

/**
 * The base URL a run's answers, requests and points are filed under in its store, decided here alone:
 * the sandbox's one identity (its port changes every run, its series must not), else the base URL's key.
 */
function storeBaseUrl(globals: Pick<GlobalOptions, 'sandbox'>, baseUrl: URL | undefined): string | undefined {
  if (globals.sandbox) return SANDBOX_IDENTITY;
  return baseUrl ? baseUrlKey(baseUrl) : undefined;
}

/**
 * Without a key, the warning comes once the server has answered anyway: when the request fails, the
 * error's own hint says what to do (a 401's says how to give a key), so the user reads one error and one hint.
 */
function warnOnAnswerWithoutKey(client: RepClient, deps: Deps): RepClient {
  const warned = <T extends { fromCache?: unknown }>(result: T): T => {
    // An answer from the cache was no request: nothing went to the server without a key this time.
    if (!result.fromCache) deps.warn('no API key is set; the server answered without one (run `rep login` or set REP_API_KEY)');
    return result;
  };
  return {
    audit: (name, call) => client.audit(name, call).then(warned),
    search: (text, call) => client.search(text, call).then(warned),
    pulse: (call) => client.pulse(call).then(warned),
    get: (path, call) => client.get(path, call).then(warned),
  };
}
