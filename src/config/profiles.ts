// Profiles: one rep, several services or accounts (production and staging, two clients' keys), like
// gh's hosts and aws profiles. The default profile is the config file's top level, as rep has always
// written it; another lives under `profiles.NAME` with the same fields (apiKey, baseUrl, store).
// Each profile keeps its local state and cache in a folder of its own, so nothing mixes; the sandbox
// has one too. Pure, like settings.ts: the caller reads the file and passes the flag and env.
import { join } from 'node:path';
import { AuthError, ConfigError, UsageError } from '../errors.js';
import { isRecord } from '../text.js';
import type { StoredConfig } from './file.js';
import type { RepPaths } from './paths.js';

export const DEFAULT_PROFILE = 'default';
/** The folder (in the state and cache dirs) that holds the sandbox's own store. */
export const SANDBOX_FOLDER = 'sandbox';

/** The base URL the sandbox's answers and points are keyed by, whatever port it listens on: its series stay one. */
export const SANDBOX_IDENTITY = 'http://sandbox/api';

export type ProfileSource = 'flag' | 'env' | 'default';

export interface ProfileChoice {
  name: string;
  source: ProfileSource;
}

// Letters, digits, dot, dash and underscore; no path separator, no leading dot or dash: a folder name everywhere.
const PROFILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

/** A profile name as given (flag or REP_PROFILE), or a usage error saying why it cannot be one. */
export function checkProfileName(name: string, from: string): string {
  if (PROFILE_NAME.test(name)) return name;
  const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
  throw new UsageError(`${from} is not a valid profile name (${shown})`, {
    hint: 'use letters, digits, dots, dashes and underscores (at most 64), not starting with a dot or a dash',
  });
}

/** `--profile` > REP_PROFILE > the default profile. */
export function chooseProfile(flag: string | undefined, env: NodeJS.ProcessEnv): ProfileChoice {
  if (flag !== undefined) return { name: checkProfileName(flag, '--profile'), source: 'flag' };
  const value = env.REP_PROFILE?.trim();
  if (value) return { name: checkProfileName(value, 'REP_PROFILE'), source: 'env' };
  return { name: DEFAULT_PROFILE, source: 'default' };
}

/** The named profiles of a config (the default one is always there). */
function namedProfiles(stored: StoredConfig): Record<string, StoredConfig> {
  const profiles = stored.profiles;
  return profiles !== null && typeof profiles === 'object' && !Array.isArray(profiles) ? (profiles as Record<string, StoredConfig>) : {};
}

/** Every profile's name, the default first, then the others sorted. */
export function profileNames(stored: StoredConfig): string[] {
  const named = Object.keys(namedProfiles(stored)).filter((name) => name !== DEFAULT_PROFILE && PROFILE_NAME.test(name));
  return [DEFAULT_PROFILE, ...named.sort()];
}

/** The selected profile's own fields, or undefined when the config has no such profile. */
export function profileConfig(stored: StoredConfig, name: string): StoredConfig | undefined {
  if (name === DEFAULT_PROFILE) {
    const { profiles: _others, ...top } = stored;
    return top;
  }
  return Object.hasOwn(namedProfiles(stored), name) ? namedProfiles(stored)[name] : undefined;
}

/** The selected profile's fields; an unknown profile is an authentication error (exit 4) saying how to create it. */
export function requireProfile(stored: StoredConfig, choice: ProfileChoice, configPath: string): StoredConfig {
  const found = profileConfig(stored, choice.name);
  if (found !== undefined) return checkedProfile(found, choice.name, configPath);
  const from = choice.source === 'env' ? ' (from REP_PROFILE)' : '';
  throw new AuthError(`no profile named ${choice.name}${from} in ${configPath}`, {
    hint: `run \`rep login --profile ${choice.name}\` to create it, or \`rep status\` to list the profiles`,
  });
}

/** A named profile's entry, checked as the file's top level is (file.ts). */
function checkedProfile(found: unknown, name: string, configPath: string): StoredConfig {
  const hint = 'fix the file by hand, or run `rep login --profile NAME` again';
  if (!isRecord(found)) throw new ConfigError(`the config file ${configPath} has a profile ${name} that is not a JSON object`, { hint });
  for (const field of ['apiKey', 'baseUrl', 'store']) {
    if (found[field] !== undefined && typeof found[field] !== 'string') {
      throw new ConfigError(`the config file ${configPath} has a "${field}" in profile ${name} that is not a string`, { hint });
    }
  }
  return found as StoredConfig;
}

/** The config with only the named profile changed (login and logout write one profile and nothing else). */
export function changeProfile(stored: StoredConfig, name: string, change: (profile: StoredConfig) => StoredConfig): StoredConfig {
  if (name === DEFAULT_PROFILE) {
    const { profiles, ...top } = stored;
    return profiles === undefined ? change(top) : { ...change(top), profiles };
  }
  const profiles = namedProfiles(stored);
  return { ...stored, profiles: { ...profiles, [name]: change({ ...(profiles[name] ?? {}) }) } };
}

/** Names a profile other than the default one, where a message says where something was stored. */
export function profileNote(name: string): string {
  return name === DEFAULT_PROFILE ? '' : ` (profile ${name})`;
}

/** The folder, relative to the state and cache dirs, of this run's local data: none for the default profile. */
export function dataScope({ sandbox, profile }: { sandbox: boolean; profile?: string | undefined }, env: NodeJS.ProcessEnv): string | undefined {
  if (sandbox) return SANDBOX_FOLDER;
  const { name } = chooseProfile(profile, env);
  return name === DEFAULT_PROFILE ? undefined : join('profiles', name);
}

/** The paths with the state and cache dirs moved into the scope's folder (the config file stays where it is). */
export function scopedPaths(paths: RepPaths, scope: string | undefined): RepPaths {
  if (!scope) return paths;
  return { ...paths, stateDir: join(paths.stateDir, scope), cacheDir: join(paths.cacheDir, scope), scope };
}

// Variables that point at real data: the sandbox never reads them, so it can never touch what they name.
const REAL_DATA_VARIABLES = ['REP_API_KEY', 'REP_BASE_URL', 'REP_PROFILE', 'REP_HISTORY_FILE', 'REP_STORE'];

/** The environment a `--sandbox` run sees: the same, without the variables that point at real data. */
export function sandboxEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of REAL_DATA_VARIABLES) delete copy[name];
  return copy;
}
