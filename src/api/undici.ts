// undici for the transport, paying only for what one GET needs. The package's index also loads fetch,
// WebSocket, cookies, caches and mocks (about 70 ms of start-up, and it wakes Node's own copy of
// undici), so without a proxy only its request API and an Agent of the client's own are used, imported
// by path. The transport imports this module on its first request, so neither the CLI nor the library pays before.
import type { Dispatcher } from 'undici';
import requestApi from 'undici/lib/api/api-request.js';
import Agent from 'undici/lib/dispatcher/agent.js';

/** Whether this Node needs V8's --liftoff-only for llhttp (see loadRequest); bin/rep.cjs asks the same. */
const BASELINE_WASM_ONLY = Number(process.versions.node.split('.')[0]) < 22;

export type RequestOptions = Pick<Dispatcher.RequestOptions, 'method' | 'headers' | 'signal'>;
export type RequestFn = (url: URL, options: RequestOptions) => Promise<Dispatcher.ResponseData>;

/**
 * undici's request function bound to a dispatcher of its own (not the process's global one: a run
 * shares no connection with another run in the same process), or, when a proxy is set, an
 * EnvHttpProxyAgent given the proxy variables of env.
 */
export async function loadRequest(env: NodeJS.ProcessEnv): Promise<RequestFn> {
  // llhttp is WebAssembly. On Node 20 (V8 11.3) its optimising tier compiles it on a background thread
  // that the process waits for at exit (~200 ms a run); the baseline tier parses an answer as well.
  // Node 22 and 24 do not wait, and there the flag only costs (~5 ms: node:v8 and the flag).
  if (BASELINE_WASM_ONLY) process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  // Lower-case names first, as undici itself reads them; '' means none. No proxy at all: no agent.
  const proxies = {
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '',
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
  if (!proxies.httpProxy && !proxies.httpsProxy) {
    // What undici.request(url, options) does with a dispatcher option. The header limit is Node's
    // default, given here: undici would load node:http (~6 ms) to ask for it.
    const agent = new Agent({ maxHeaderSize: 16 * 1024 });
    return (url, options) => requestApi.call(agent, { ...options, origin: url.origin, path: `${url.pathname}${url.search}` });
  }
  // The whole package: ProxyAgent tunnels with Dispatcher#connect, which only its index installs.
  const imported = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  const undici = imported.default ?? imported;
  const dispatcher = new undici.EnvHttpProxyAgent(proxies);
  return (url, options) => undici.request(url, { ...options, dispatcher });
}
