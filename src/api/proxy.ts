// Which proxy a request goes through, from the proxy variables of the env given: none for a loopback
// host (a proxy would read the key of a plain-http tunnel, and the sandbox is in-process), none for a
// host NO_PROXY names (as undici and curl read it), else HTTPS_PROXY for https (HTTP_PROXY when unset)
// and HTTP_PROXY for http, lower-case names first.
import { UsageError } from './errors.js';
import { isLoopbackHost, withoutUserinfo } from './base-url.js';

/** The proxy a request goes through, and how messages and --debug name it. */
export interface ProxyRoute {
  url: URL;
  /** The variable it came from: `HTTPS_PROXY`, `https_proxy`, … */
  variable: string;
  /** `http://****@proxy.example:3128`: credentials never shown. */
  shown: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const SCHEMES = new Set(['http:', 'https:', 'socks:', 'socks5:']);

/** The proxy for a request to target, or undefined to go direct; UsageError for a malformed proxy URL. */
export function proxyFor(target: URL, env: Env): ProxyRoute | undefined {
  if (isLoopbackHost(target.hostname)) return undefined;
  const found = (target.protocol === 'https:' ? variable(env, 'https_proxy') : undefined) ?? variable(env, 'http_proxy');
  if (!found || bypassed(target, env.no_proxy ?? env.NO_PROXY ?? '')) return undefined;
  return parseProxy(found.value, found.name);
}

function variable(env: Env, lower: string): { name: string; value: string } | undefined {
  const upper = lower.toUpperCase();
  const [name, value] = env[lower] !== undefined ? [lower, env[lower]] : [upper, env[upper]];
  return value?.trim() ? { name, value: value.trim() } : undefined;
}

/** NO_PROXY: entries split by commas or spaces, `*` for all, `host`, `.domain` or `*.domain` for it and its subdomains, `:port` optional. */
function bypassed(target: URL, noProxy: string): boolean {
  if (noProxy.trim() === '*') return true;
  const host = target.hostname.toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return noProxy.split(/[,\s]/).some((entry) => {
    if (!entry) return false;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    if (parsed && Number(parsed[2]) !== port) return false;
    const name = (parsed?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    return host === name || host.endsWith(`.${name}`);
  });
}

function parseProxy(value: string, name: string): ProxyRoute {
  const invalid = (what: string) =>
    new UsageError(`the proxy URL in ${name} is not valid: ${what}`, { hint: `set ${name} to a URL such as http://proxy.example.com:3128, or unset it` });
  // `proxy.example:3128` without a scheme is an http proxy, as curl reads it.
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  if (!url?.hostname) throw invalid(JSON.stringify(withoutUserinfo(value)));
  if (!SCHEMES.has(url.protocol)) throw invalid(`${url.protocol} is not http, https or socks5`);
  const credentials = url.username || url.password ? '****@' : '';
  return { url, variable: name, shown: `${url.protocol}//${credentials}${url.host}` };
}
