// Where rep keeps its files: the config in the platform's config dir (or REP_CONFIG_DIR), the request
// count in the state dir, later a cache in the cache dir. Setting HOME and XDG_* isolates all of them.
// Relative paths in these variables are ignored, as the XDG spec says: never the working directory.
import envPaths from 'env-paths';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export interface RepPaths {
  configDir: string;
  configFile: string;
  stateDir: string;
  cacheDir: string;
}

export function repPaths(env: NodeJS.ProcessEnv, warn?: (text: string) => void): RepPaths {
  // env-paths reads XDG_* from process.env; commands always pass process.env, tests set it per child.
  const platform = envPaths('rep', { suffix: '' });
  const config = xdgDir(env, 'XDG_CONFIG_HOME', platform.config, ['.config']);
  let configDir = config;
  if (env.REP_CONFIG_DIR && isAbsolute(env.REP_CONFIG_DIR)) configDir = env.REP_CONFIG_DIR;
  else if (env.REP_CONFIG_DIR) {
    warn?.(`REP_CONFIG_DIR is a relative path (${JSON.stringify(env.REP_CONFIG_DIR)}), ignored like a relative XDG path; the config is in ${config}`);
  }
  return {
    configDir,
    configFile: join(configDir, 'config.json'),
    stateDir: xdgDir(env, 'XDG_STATE_HOME', platform.log, ['.local', 'state']), // env-paths' "log" is XDG_STATE_HOME/rep
    cacheDir: xdgDir(env, 'XDG_CACHE_HOME', platform.cache, ['.cache']),
  };
}

/** env-paths' directory, or the XDG default under the home directory when the variable holds a relative path. */
function xdgDir(env: NodeJS.ProcessEnv, variable: string, fromEnvPaths: string, defaultInHome: readonly string[]): string {
  const value = env[variable];
  // Only Linux and the BSDs use XDG directories; macOS and Windows have their own.
  if (process.platform === 'darwin' || process.platform === 'win32' || !value || isAbsolute(value)) return fromEnvPaths;
  return join(homedir(), ...defaultInHome, 'rep');
}
