// Resolves the base URL and the key with the contract's precedence: flag > environment > config file.
// Pure (the caller reads the config file), so precedence and validation are unit-tested without a process.
import { checkBaseUrl } from '../api/base-url.js';
import { checkKey } from '../api/request.js';
import type { StoredConfig } from './file.js';

// One rule for each, shared with the library: the client checks and redacts with them, status and login show them.
export { isLoopbackHost } from '../api/base-url.js';
export { checkKey, maskKey } from '../api/request.js';

export type BaseUrlSource = 'flag' | 'env' | 'config' | 'sandbox' | 'none';
export type KeySource = 'env' | 'config' | 'sandbox' | 'none';

export interface Settings {
  baseUrl?: URL;
  baseUrlSource: BaseUrlSource;
  key?: string;
  keySource: KeySource;
  configPath: string;
}

export interface SettingsInput {
  flagBaseUrl?: string;
  env: NodeJS.ProcessEnv;
  stored: StoredConfig;
  configPath: string;
}

export function resolveSettings({ flagBaseUrl, env, stored, configPath }: SettingsInput): Settings {
  const settings: Settings = { ...resolveBaseUrl({ flagBaseUrl, env, stored }), keySource: 'none', configPath };
  const envKey = env.REP_API_KEY?.trim();
  const storedKey = stored.apiKey?.trim();
  if (envKey) {
    settings.key = checkKey(envKey, 'REP_API_KEY');
    settings.keySource = 'env';
  } else if (storedKey) {
    settings.key = checkKey(storedKey, `the config file ${configPath}`);
    settings.keySource = 'config';
  }
  return settings;
}

/** The base URL alone (what `login` needs: a stored key it is about to replace is not checked). */
export function resolveBaseUrl({ flagBaseUrl, env, stored }: Omit<SettingsInput, 'configPath'>): Pick<Settings, 'baseUrl' | 'baseUrlSource'> {
  const candidates: Array<[BaseUrlSource, string | undefined]> = [
    ['flag', flagBaseUrl],
    ['env', env.REP_BASE_URL],
    ['config', stored.baseUrl],
  ];
  for (const [source, value] of candidates) {
    if (value !== undefined && value.trim() !== '') return { baseUrl: parseBaseUrl(value, source), baseUrlSource: source };
  }
  return { baseUrlSource: 'none' };
}

const SOURCE_NAMES: Record<BaseUrlSource, string> = {
  flag: '--base-url',
  env: 'REP_BASE_URL',
  config: 'the config file',
  sandbox: 'the sandbox',
  none: 'nowhere',
};

/** A base URL from the given source, validated by the library's rules (api/request.ts). */
export function parseBaseUrl(value: string, source: BaseUrlSource = 'flag'): URL {
  return checkBaseUrl(value, SOURCE_NAMES[source]);
}
