// `rep login`: read the key (hidden prompt on a terminal, first line of stdin otherwise), check it with
// one pulse call unless --no-verify, then store key and base URL in the config file.
import { signalOf } from '../api/abort-link.js';
import { looseConfigPermissions, updateConfigFile, readConfigFile } from '../config/file.js';
import { baseUrlText } from '../api/base-url.js';
import { checkKey, maskKey, parseBaseUrl, resolveBaseUrl } from '../config/settings.js';
import { changeProfile, chooseProfile, profileConfig, profileNote } from '../config/profiles.js';
import type { Deps } from '../deps.js';
import { AuthError, UsageError } from '../errors.js';
import { ask, readFirstLine } from '../prompt.js';
import { refuseUnderSandbox } from './no-sandbox.js';

export interface LoginOptions {
  /** false under `--no-verify`: store the key without the one pulse call that checks it. */
  verify: boolean;
}

export async function run(opts: LoginOptions, deps: Deps): Promise<void> {
  refuseUnderSandbox(deps, 'login');
  const { io } = deps;
  const { configFile } = deps.paths();
  // Only the chosen profile is read and written (a new one is created); the others stay as they are.
  const profile = chooseProfile(deps.globals.profile, deps.env);
  const stored = profileConfig(readConfigFile(configFile), profile.name) ?? {};
  let { baseUrl } = resolveBaseUrl({ flagBaseUrl: deps.globals.baseUrl, env: deps.env, stored });
  if (!baseUrl) {
    if (!io.stdinIsTTY || !io.stderrIsTTY) {
      throw new UsageError('no base URL to log in to', { hint: 'pass --base-url URL (the service address, ending in /api)' });
    }
    baseUrl = parseBaseUrl(await ask(io, 'Base URL of the API (ends in /api): ', { hidden: false, signal: signalOf(deps.signal) }));
  }
  const entered = (
    io.stdinIsTTY ? await ask(io, 'API key (input hidden): ', { hidden: true, signal: signalOf(deps.signal) }) : await readKeyFromStdin(deps)
  ).trim();
  if (!entered) throw new UsageError('no API key given', { hint: 'paste the key at the prompt, or pipe it: printf %s "$KEY" | rep login' });
  const key = checkKey(entered, io.stdinIsTTY ? 'the prompt' : 'stdin');

  if (opts.verify) {
    const client = await deps.clientFor({ baseUrl, key, keySource: 'config', baseUrlSource: 'flag', configPath: configFile });
    await client.pulse({ signal: signalOf(deps.signal) }).catch((error: unknown) => {
      // The usual hint is to run `rep login`, which is what the user just did.
      if (!(error instanceof AuthError)) throw error;
      const checked = new AuthError(error.message, { hint: 'check the key (copy it again from your account) and the base URL, then try again', cause: error });
      if (error.status !== undefined) checked.status = error.status;
      throw checked;
    });
  }
  await updateConfigFile(configFile, (config) => changeProfile(config, profile.name, (own) => ({ ...own, apiKey: key, baseUrl: baseUrlText(baseUrl) })));
  // A directory that is shared or someone else's is not tightened: say so now, as every later command will.
  for (const problem of looseConfigPermissions(configFile)) deps.warn(problem);
  if (deps.env.REP_API_KEY?.trim()) {
    deps.warn('REP_API_KEY is set and takes precedence over the stored key while it stays set');
  }
  if (!deps.globals.quiet) {
    io.err(
      `Logged in to ${baseUrlText(baseUrl)} with key ${maskKey(key)}${opts.verify ? ' (verified)' : ' (not verified)'}; stored in ${configFile}${profileNote(profile.name)}\n`,
    );
  }
}

function readKeyFromStdin(deps: Deps): Promise<string> {
  deps.debug('reading the API key from the first line of stdin');
  return readFirstLine(deps.io, signalOf(deps.signal));
}
