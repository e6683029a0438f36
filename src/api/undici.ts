// undici, for requests through a proxy: its EnvHttpProxyAgent does what Node's own client cannot on
// Node 20 and 22, HTTP_PROXY, HTTPS_PROXY (tunnelled with CONNECT) and NO_PROXY, as curl reads them.
// Requests without a proxy go through Node's client (src/api/http.ts). transport.ts imports this file
// only when a proxy is set, and the build makes it a leaf of its own (dist/lib/undici.cjs).
import { EnvHttpProxyAgent, request } from 'undici';
import type { ProxyVariables, RequestFn } from './transport.js';

/** Whether this Node needs V8's --liftoff-only for llhttp (see proxyRequest); bin/rep.cjs asks the same. */
const BASELINE_WASM_ONLY = Number(process.versions.node.split('.')[0]) < 22;

/** A GET through the proxy the variables name, on a dispatcher of its own (not the process's global one). */
export function proxyRequest(proxies: ProxyVariables): RequestFn {
  // undici parses HTTP with llhttp in WebAssembly. On Node 20 (V8 11.3) its optimising tier compiles it on
  // a background thread that the process waits for at exit; the baseline tier parses
  // an answer as well. Node 22 and 24 do not wait, and there the flag only costs (node:v8 and the flag).
  if (BASELINE_WASM_ONLY) process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  // The header limit is Node's default, given here: undici would load node:http to ask for it.
  const dispatcher = new EnvHttpProxyAgent({ ...proxies, maxHeaderSize: 16 * 1024 });
  return async (url, { headers, signal }) => {
    const { statusCode, headers: received, body } = await request(url, { method: 'GET', headers, signal, dispatcher });
    body.on('error', () => undefined); // kept on the stream for its reader (RawResponse)
    return { statusCode, headers: received, body };
  };
}
