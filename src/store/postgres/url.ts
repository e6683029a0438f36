// A store URL (`postgres://user:pass@host:5432/db?sslmode=…`, libpq's forms) as connection settings,
// and the same URL for people: host, database and user, never the password.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hasControlCharacter } from '../../text.js';

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

export interface StoreTarget {
  /** A host name or address; a directory (starting with /) is a unix socket's. */
  host: string;
  port: number;
  database: string;
  user: string;
  /** Where the password came from: never the password itself in anything printed. */
  passwordSource: 'url' | 'PGPASSWORD' | 'pgpass' | 'none';
  password?: string;
  sslmode: SslMode;
  /** Server settings from libpq's `options=-c name=value` and `application_name`. */
  settings: Record<string, string>;
}

/** Whether text names a PostgreSQL store (the only kind a URL can name). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text.trim());
}

/** Whether a store URL carries a password (refused on the command line, where `ps` shows it). */
export function urlHasPassword(text: string): boolean {
  try {
    return new URL(text.trim()).password !== '';
  } catch {
    return false;
  }
}

/**
 * The URL read as libpq reads it: query `host` (a socket directory), `port`, `dbname`, `user`,
 * `password`, `sslmode`, `options`, `application_name`; defaults from PG* variables, then libpq's.
 * A bad URL throws an Error whose message quotes no part of the URL that may hold a password.
 */
export function parseStoreUrl(text: string, env: Record<string, string | undefined>, home?: string): StoreTarget {
  const trimmed = text.trim();
  if (hasControlCharacter(trimmed)) throw new Error('the store URL holds a tab or line break: it is no URL');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new Error('the store URL is not a valid URL (expected postgres://user@host:5432/database)');
  }
  if (!isPostgresUrl(url.href)) throw new Error(`the store URL must start with postgres:// or postgresql://, not ${url.protocol}//`);
  const query = queryValues(url.search);
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value);
    } catch {
      throw new Error('the store URL has a malformed %-escape');
    }
  };
  const host = query.get('host') ?? (url.hostname ? decode(url.hostname).replace(/^\[(.*)\]$/, '$1') : (env.PGHOST ?? '/var/run/postgresql'));
  const portText = query.get('port') ?? (url.port || env.PGPORT || '5432');
  const port = /^\d+$/.test(portText) ? Number(portText) : Number.NaN; // not 0x1F90, 8e3 or ' 80'
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`the store URL's port is not a port number: ${portText}`);
  const user = query.get('user') ?? (url.username ? decode(url.username) : (env.PGUSER ?? env.USER ?? 'postgres'));
  const database = query.get('dbname') ?? (url.pathname.length > 1 ? decode(url.pathname.slice(1)) : (env.PGDATABASE ?? user));
  const sslText = (query.get('sslmode') ?? env.PGSSLMODE ?? 'prefer').toLowerCase();
  if (!(SSL_MODES as readonly string[]).includes(sslText)) throw new Error(`the store URL's sslmode must be one of ${SSL_MODES.join(', ')}, not ${sslText}`);
  const settings = parseOptions(query.get('options') ?? '');
  const applicationName = query.get('application_name');
  settings.application_name = applicationName ?? 'rep';
  const target: StoreTarget = { host, port, database, user, passwordSource: 'none', sslmode: sslText as SslMode, settings };
  const fromUrl = query.get('password') ?? (url.password ? decode(url.password) : undefined);
  const fromPgpass = () => (home ? pgpassPassword(join(home, '.pgpass'), target, env) : undefined);
  if (fromUrl !== undefined) return { ...target, password: fromUrl, passwordSource: 'url' };
  if (env.PGPASSWORD) return { ...target, password: env.PGPASSWORD, passwordSource: 'PGPASSWORD' };
  const pgpass = fromPgpass();
  return pgpass === undefined ? target : { ...target, password: pgpass, passwordSource: 'pgpass' };
}

/**
 * The first value of each name in a URL's query, as URLSearchParams reads them (WHATWG's form encoding:
 * `+` is a space, %-escapes are UTF-8 bytes, a malformed one stays as it is). URLSearchParams itself is
 * more of Node's code for a run to compile than all the rest of this file.
 */
export function queryValues(search: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const pair of search.slice(search.startsWith('?') ? 1 : 0).split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = formDecode(at === -1 ? pair : pair.slice(0, at));
    if (!values.has(name)) values.set(name, at === -1 ? '' : formDecode(pair.slice(at + 1)));
  }
  return values;
}

/** A name or value of a form-encoded query: `+` a space, then %-escapes decoded as UTF-8 bytes (a bad sequence as U+FFFD). */
function formDecode(text: string): string {
  const spaced = text.replaceAll('+', ' ');
  if (!spaced.includes('%')) return spaced;
  const bytes = Buffer.from(spaced);
  const decoded = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const hex = bytes[i] === 0x25 && i + 2 < bytes.length ? String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!) : '';
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      decoded[length++] = Number.parseInt(hex, 16);
      i += 2;
    } else decoded[length++] = bytes[i]!;
  }
  return decoded.toString('utf8', 0, length);
}

/** libpq's `options`: `-c name=value` pairs (and `--name=value`). */
function parseOptions(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  const words = text.split(/\s+/).filter(Boolean);
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i]!;
    const pair = word === '-c' ? words[++i] : word.startsWith('-c') ? word.slice(2) : word.startsWith('--') ? word.slice(2) : undefined;
    const at = pair?.indexOf('=') ?? -1;
    if (pair === undefined || at <= 0) throw new Error('the store URL\'s options must be "-c name=value" pairs');
    settings[pair.slice(0, at).replaceAll('-', '_')] = pair.slice(at + 1);
  }
  return settings;
}

/** The password for this target from a pgpass file, read as libpq does (ignored unless private). */
export function pgpassPassword(
  defaultPath: string,
  target: Pick<StoreTarget, 'host' | 'port' | 'database' | 'user'>,
  env: Record<string, string | undefined>,
): string | undefined {
  const path = env.PGPASSFILE ?? defaultPath;
  let text: string;
  try {
    if ((statSync(path).mode & 0o077) !== 0) return undefined;
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const host = target.host.startsWith('/') ? 'localhost' : target.host;
  const wanted = [host, String(target.port), target.database, target.user];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const fields = line.split(/(?<!\\):/).map((field) => field.replace(/\\([:\\])/g, '$1'));
    if (fields.length < 5) continue;
    if (wanted.every((value, i) => fields[i] === '*' || fields[i] === value)) return fields.slice(4).join(':');
  }
  return undefined;
}

/** The target for people: where, never the password. */
export function describeTarget(target: StoreTarget): Array<{ label: string; value: string }> {
  return [
    { label: 'store', value: 'postgres' },
    { label: 'host', value: target.host.startsWith('/') ? `${target.host} (socket), port ${target.port}` : `${target.host}:${target.port}` },
    { label: 'database', value: target.database },
    { label: 'user', value: target.user },
    { label: 'sslmode', value: target.sslmode },
  ];
}

/** A short `user@host:port/database` for one-line messages. */
export function targetText(target: StoreTarget): string {
  return `${target.user}@${socketPath(target) ?? `${target.host}:${target.port}`}/${target.database}`;
}

/** The unix socket a target names (libpq's `<dir>/.s.PGSQL.<port>`), or undefined for a TCP host. */
export function socketPath(target: StoreTarget): string | undefined {
  return target.host.startsWith('/') ? `${target.host}/.s.PGSQL.${target.port}` : undefined;
}
