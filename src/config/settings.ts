// Resolves the base URL and the key with the contract's precedence: flag > environment > config file.
// Pure except for reading the config file, so precedence is unit-tested without a process.
import { isIP } from 'node:net';
import { UsageError } from '../errors.js';
import type { StoredConfig } from './file.js';

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
  const settings: Settings = { baseUrlSource: 'none', keySource: 'none', configPath };
  const candidates: Array<[BaseUrlSource, string | undefined]> = [
    ['flag', flagBaseUrl],
    ['env', env.REP_BASE_URL],
    ['config', stored.baseUrl],
  ];
  for (const [source, value] of candidates) {
    if (value === undefined || value.trim() === '') continue;
    settings.baseUrl = parseBaseUrl(value, source);
    settings.baseUrlSource = source;
    break;
  }
  const envKey = env.REP_API_KEY?.trim();
  const storedKey = stored.apiKey?.trim();
  if (envKey) {
    settings.key = envKey;
    settings.keySource = 'env';
  } else if (storedKey) {
    settings.key = storedKey;
    settings.keySource = 'config';
  }
  return settings;
}

const SOURCE_NAMES: Record<BaseUrlSource, string> = {
  flag: '--base-url',
  env: 'REP_BASE_URL',
  config: 'the config file',
  sandbox: 'the sandbox',
  none: 'nowhere',
};

/**
 * Validates a base URL: http(s) only, plain http only for loopback hosts (the key would travel in the
 * clear), no query, fragment or credentials. The path is kept, without a trailing slash.
 */
export function parseBaseUrl(value: string, source: BaseUrlSource = 'flag'): URL {
  const from = SOURCE_NAMES[source];
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError(`invalid base URL from ${from}: ${JSON.stringify(value)}`, { hint: 'give a full URL such as https://example.com/api' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid base URL from ${from}: ${url.protocol} is not http or https`, { hint: 'give a full URL such as https://example.com/api' });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing plain http:// for ${url.hostname}: the API key would travel unencrypted`, { hint: 'use https://, or http:// only for localhost / 127.0.0.1 / ::1' });
  }
  if (url.username || url.password) {
    throw new UsageError(`invalid base URL from ${from}: it must not carry a user name or password`);
  }
  if (url.search || url.hash) {
    throw new UsageError(`invalid base URL from ${from}: it must not carry a query or fragment`, { hint: 'give the URL that ends in /api, e.g. https://example.com/api' });
  }
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(host);
  return false;
}

/** The key as it may be shown: its last 4 characters at most. */
export function maskKey(key: string): string {
  return key.length <= 8 ? '****' : `****${key.slice(-4)}`;
}
