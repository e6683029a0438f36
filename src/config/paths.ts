// Where rep keeps its files: the config in the platform's config dir (or REP_CONFIG_DIR), the request
// count in the state dir, later a cache in the cache dir. Setting HOME and XDG_* isolates all of them.
import envPaths from 'env-paths';
import { join } from 'node:path';

export interface RepPaths {
  configDir: string;
  configFile: string;
  stateDir: string;
  cacheDir: string;
}

export function repPaths(env: NodeJS.ProcessEnv): RepPaths {
  // env-paths reads XDG_* from process.env; commands always pass process.env, tests set it per child.
  const platform = envPaths('rep', { suffix: '' });
  const configDir = env.REP_CONFIG_DIR ? env.REP_CONFIG_DIR : platform.config;
  return {
    configDir,
    configFile: join(configDir, 'config.json'),
    stateDir: platform.log, // env-paths' "log" is XDG_STATE_HOME/rep on Linux
    cacheDir: platform.cache,
  };
}
