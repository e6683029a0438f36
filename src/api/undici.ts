// undici, for requests through a proxy: its ProxyAgent does what Node's own client cannot on Node 20
// and 22, a request tunnelled through a proxy with CONNECT. Which proxy (if any) serves a request is
// decided in src/api/proxy.ts; the others go through Node's client (src/api/http.ts). transport.ts
// imports this file only for a proxied request, and the build makes it a leaf (dist/lib/undici.cjs).
import { type Dispatcher, ProxyAgent, request } from 'undici';
import type { RequestFn } from './transport.js';

/** Whether this Node needs V8's --liftoff-only for llhttp (see proxyRequest); bin/rep.cjs asks the same. */
const BASELINE_WASM_ONLY = Number(process.versions.node.split('.')[0]) < 22;

/** A GET through the given proxy, on a dispatcher of its own (not the process's global one). */
export function proxyRequest(proxy: URL): RequestFn {
  // undici parses HTTP with llhttp in WebAssembly. On Node 20 (V8 11.3) its optimising tier compiles it on
  // a background thread that the process waits for at exit; the baseline tier parses
  // an answer as well. Node 22 and 24 do not wait, and there the flag only costs (node:v8 and the flag).
  if (BASELINE_WASM_ONLY) process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  // The header limit is Node's default, given here: undici would load node:http to ask for it.
  const dispatcher = new ProxyAgent({ uri: proxy.href, maxHeaderSize: 16 * 1024 });
  return async (target, { headers, abort, onSent }) => {
    const through = onSent ? dispatcher.compose((dispatch) => (options, handler) => dispatch(options, sentFirst(handler, onSent))) : dispatcher;
    const { statusCode, headers: received, body } = await request(target.url, { method: 'GET', headers, signal: abort.signal, dispatcher: through });
    body.on('error', () => undefined); // kept on the stream for its reader (RawResponse)
    return { statusCode, headers: received, body };
  };
}

/**
 * The handler, telling `onSent` first when the request starts on its connection (undici calls
 * onRequestStart just before it writes the request, after the proxy's tunnel is up), so a run killed
 * while it waits for the answer has counted the request.
 */
function sentFirst(handler: Dispatcher.DispatchHandler, onSent: (held: false) => unknown): Dispatcher.DispatchHandler {
  return {
    onRequestStart(controller, context) {
      onSent(false); // its bytes cannot wait: counted now
      handler.onRequestStart?.(controller, context);
    },
    onRequestUpgrade: (...args) => handler.onRequestUpgrade?.(...args),
    onResponseStart: (...args) => handler.onResponseStart?.(...args),
    onResponseData: (...args) => handler.onResponseData?.(...args),
    onResponseEnd: (...args) => handler.onResponseEnd?.(...args),
    onResponseError: (...args) => handler.onResponseError?.(...args),
  };
}
