// `rep logout`: remove the stored key of the chosen profile, and only that key.
import { readConfigFile, updateConfigFile } from '../config/file.js';
import { changeProfile, chooseProfile, profileNote, requireProfile } from '../config/profiles.js';
import type { Deps } from '../deps.js';
import { refuseUnderSandbox } from './no-sandbox.js';

/** logout takes no options of its own. */
export type LogoutOptions = Record<string, never>;

export async function run(_opts: LogoutOptions, deps: Deps): Promise<void> {
  refuseUnderSandbox(deps, 'logout');
  const { configFile } = deps.paths();
  const profile = chooseProfile(deps.globals.profile, deps.env);
  const had = requireProfile(readConfigFile(configFile), profile, configFile).apiKey !== undefined;
  if (had) {
    await updateConfigFile(configFile, (config) => changeProfile(config, profile.name, ({ apiKey: _removed, ...rest }) => rest));
  }
  const where = `${configFile}${profileNote(profile.name)}`;
  if (!deps.globals.quiet) deps.io.err(had ? `Removed the stored API key from ${where}\n` : `No API key was stored in ${where}\n`);
  if (deps.env.REP_API_KEY?.trim()) deps.warn('REP_API_KEY is still set in the environment and will be used');
}
