// Where rep keeps its files: the config in the platform's config dir (or REP_CONFIG_DIR), the request
// count and the history in the state dir, the answer cache in the cache dir. A pure function of the environment it is
// given (never process.env), so setting HOME and XDG_* for a run isolates all of them. Relative paths
// in these variables are ignored, as the XDG spec says: never the working directory.
import { isAbsolute, join } from 'node:path';

export interface RepPaths {
  configDir: string;
  configFile: string;
  stateDir: string;
  cacheDir: string;
  /** The folder of a profile's or the sandbox's own data inside the state and cache dirs (config/profiles.ts). */
  scope?: string;
}

export function repPaths(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, warn?: (text: string) => void): RepPaths {
  const platformDirs = platform === 'darwin' ? macDirs(env) : platform === 'win32' ? windowsDirs(env) : xdgDirs(env);
  let configDir = platformDirs.configDir;
  if (env.REP_CONFIG_DIR && isAbsolute(env.REP_CONFIG_DIR)) configDir = env.REP_CONFIG_DIR;
  else if (env.REP_CONFIG_DIR) {
    warn?.(`REP_CONFIG_DIR is a relative path (${JSON.stringify(env.REP_CONFIG_DIR)}), ignored like a relative XDG path; the config is in ${configDir}`);
  }
  return { ...platformDirs, configDir, configFile: join(configDir, 'config.json') };
}

/** REP_CACHE_DIR, else the platform's cache dir for rep; a profile's or the sandbox's folder inside it. */
export function cacheDirFrom(env: NodeJS.ProcessEnv, paths: Pick<RepPaths, 'cacheDir' | 'scope'>): string {
  if (!env.REP_CACHE_DIR?.trim()) return paths.cacheDir;
  return paths.scope ? join(env.REP_CACHE_DIR, paths.scope) : env.REP_CACHE_DIR;
}

/**
 * The history's folder: REP_HISTORY_FILE (its name from when it was one file, kept for CI caches),
 * else `history` in the state dir; and the history.jsonl of an earlier rep to move over on first use.
 */
export function historyPlace(env: NodeJS.ProcessEnv, stateDir: string): { historyDir: string; legacyHistoryFile: string } {
  const named = env.REP_HISTORY_FILE?.trim() ? env.REP_HISTORY_FILE : undefined;
  return named
    ? { historyDir: named, legacyHistoryFile: named }
    : { historyDir: join(stateDir, 'history'), legacyHistoryFile: join(stateDir, 'history.jsonl') };
}

type PlatformDirs = Omit<RepPaths, 'configFile'>;

/** HOME as given; the account's home directory only when the environment names none (node:os loaded only then). */
export function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || process.getBuiltinModule('node:os').homedir();
}

/** The XDG base directories: a variable that is unset, empty or relative is ignored, as the spec says. */
function xdgDirs(env: NodeJS.ProcessEnv): PlatformDirs {
  const base = (name: string, fallback: string[]) => {
    const value = env[name];
    return value && isAbsolute(value) ? value : join(home(env), ...fallback);
  };
  return {
    configDir: join(base('XDG_CONFIG_HOME', ['.config']), 'rep'),
    stateDir: join(base('XDG_STATE_HOME', ['.local', 'state']), 'rep'),
    cacheDir: join(base('XDG_CACHE_HOME', ['.cache']), 'rep'),
  };
}

function macDirs(env: NodeJS.ProcessEnv): PlatformDirs {
  const library = join(home(env), 'Library');
  return { configDir: join(library, 'Preferences', 'rep'), stateDir: join(library, 'Logs', 'rep'), cacheDir: join(library, 'Caches', 'rep') };
}

function windowsDirs(env: NodeJS.ProcessEnv): PlatformDirs {
  const profile = env.USERPROFILE || home(env);
  const roaming = env.APPDATA || join(profile, 'AppData', 'Roaming');
  const local = env.LOCALAPPDATA || join(profile, 'AppData', 'Local');
  return { configDir: join(roaming, 'rep', 'Config'), stateDir: join(local, 'rep', 'Log'), cacheDir: join(local, 'rep', 'Cache') };
}
