// Resolves the base URL and the key with the contract's precedence: flag > environment > config file.
// Pure (the caller reads the config file), so precedence and validation are unit-tested without a process.
import { BlockList, isIP } from 'node:net';
import { UsageError } from '../errors.js';
import type { StoredConfig } from './file.js';

// One masking rule for the whole CLI: the client redacts with it, status and login show it.
export { maskKey } from '../api/redact.js';

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

/**
 * A key must be sendable as a header value: printable ASCII without spaces. Checked here so a
 * pasted stray character is a clear usage error, not a failure deep in the HTTP library.
 */
export function checkKey(key: string, from: string): string {
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(`the API key from ${from} has characters an API key cannot have (spaces, controls or non-ASCII)`, {
      hint: 'copy the key again from your account on the service',
    });
  }
  return key;
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
    throw new UsageError(`invalid base URL from ${from}: ${JSON.stringify(withoutUserinfo(value))}`, { hint: 'give a full URL such as https://example.com/api' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // Without `//` after it, the "scheme" may be a user name: `user:password@host/api`.
    const scheme = value.trim().toLowerCase().startsWith(`${url.protocol}//`) ? url.protocol : 'its scheme';
    throw new UsageError(`invalid base URL from ${from}: ${scheme} is not http or https`, { hint: 'give a full URL such as https://example.com/api' });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing the plain http:// base URL from ${from} for ${url.hostname}: the API key would travel unencrypted`, {
      hint: 'use https://, or http:// only for localhost, 127.0.0.0/8 or [::1]',
    });
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

/** A base URL as typed, for a message: whatever comes before its last `@` (a user name, a password) is left out. */
function withoutUserinfo(value: string): string {
  const at = value.lastIndexOf('@');
  if (at === -1) return value;
  const scheme = /^\s*[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  return `${scheme}…@${value.slice(at + 1)}`;
}

/** A base URL as shown and stored: without the slash URL puts after a bare origin. */
export function baseUrlText(url: URL): string {
  return url.href.replace(/\/$/, '');
}

let loopback: BlockList | undefined;

/**
 * Whether a URL hostname is the local machine: `localhost`, 127.0.0.0/8, ::1 and their IPv4-mapped
 * forms (`[::ffff:127.0.0.1]`, which URL rewrites to `[::ffff:7f00:1]`). `localhost.` and
 * `*.localhost` are refused: a resolver may send them to DNS, which could answer with any address.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost') return true;
  const family = isIP(host);
  if (family === 0) return false;
  if (!loopback) {
    loopback = new BlockList();
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    loopback.addAddress('::1', 'ipv6');
  }
  // BlockList matches IPv4-mapped IPv6 addresses against the IPv4 rules.
  return loopback.check(host, family === 6 ? 'ipv6' : 'ipv4');
}
