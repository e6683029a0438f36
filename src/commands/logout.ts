// `rep logout`: remove the stored key, and only the key.
import { readConfigFile, updateConfigFile } from '../config/file.js';
import type { Deps } from '../deps.js';
import { refuseUnderSandbox } from './no-sandbox.js';

/** logout takes no options of its own. */
export type LogoutOptions = Record<string, never>;

export async function run(_opts: LogoutOptions, deps: Deps): Promise<void> {
  refuseUnderSandbox(deps, 'logout');
  const { configFile } = deps.paths();
  const had = readConfigFile(configFile).apiKey !== undefined;
  if (had) {
    await updateConfigFile(configFile, ({ apiKey: _removed, ...rest }) => rest);
  }
  if (!deps.globals.quiet) deps.io.err(had ? `Removed the stored API key from ${configFile}\n` : `No API key was stored in ${configFile}\n`);
  if (deps.env.REP_API_KEY?.trim()) deps.warn('REP_API_KEY is still set in the environment and will be used');
}
