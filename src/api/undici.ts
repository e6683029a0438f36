// undici for the transport, paying only for what one GET needs. The package's index also loads fetch,
// WebSocket, cookies, caches and mocks (about 70 ms of start-up, and it wakes Node's own copy of
// undici), so without a proxy only its request API and global dispatcher are used, imported by path.
// The transport imports this module on its first request, so neither the CLI nor the library pays before.
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
import requestApi from 'undici/lib/api/api-request.js';
import undiciGlobal from 'undici/lib/global.js';

export type RequestOptions = Pick<Dispatcher.RequestOptions, 'method' | 'headers' | 'signal'>;
export type RequestFn = (url: URL, options: RequestOptions) => Promise<Dispatcher.ResponseData>;

/**
 * undici's request function bound to the dispatcher it should use: the global one, or, when a proxy
 * is set, an EnvHttpProxyAgent given the proxy variables of env.
 */
export async function loadRequest(env: NodeJS.ProcessEnv): Promise<RequestFn> {
  // llhttp is WebAssembly: V8's optimising tier would compile it on a background thread that the
  // process waits for at exit (~100 ms); the baseline tier parses one answer just as well.
  setFlagsFromString('--liftoff-only');
  // Lower-case names first, as undici itself reads them; '' means none. No proxy at all: no agent.
  const proxies = {
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '',
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
  if (!proxies.httpProxy && !proxies.httpsProxy) {
    // What undici.request(url, options) does without a dispatcher option.
    return (url, options) => requestApi.call(undiciGlobal.getGlobalDispatcher(), { ...options, origin: url.origin, path: `${url.pathname}${url.search}` });
  }
  // The whole package: ProxyAgent tunnels with Dispatcher#connect, which only its index installs.
  const imported = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  const undici = imported.default ?? imported;
  const dispatcher = new undici.EnvHttpProxyAgent(proxies);
  return (url, options) => undici.request(url, { ...options, dispatcher });
}
