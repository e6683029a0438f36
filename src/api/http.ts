// Requests without a proxy go out through Node's own HTTP client (node:http, node:https). It is part of
// every Node and parses in C++, so a request loads no package: undici, with its WebAssembly parser and
// its ~40 modules, made each run slower on Node 22 and 24 (docs/performance.md). undici stays for
// what Node's client lacks on 20 and 22, proxies (src/api/undici.ts); transport.ts chooses.
import type { Agent } from 'node:http';
import type { Origin } from './base-url.js';
import type { RawResponse, RequestFn } from './transport.js';

/**
 * A GET through Node's client, with keep-alive agents of its own (one per scheme, made on first use): a
 * batch reuses its connections, and a run shares none with another run in the same process. An idle
 * connection does not keep the process alive.
 */
/** The name and code of Node's AbortError, which its client fails with when its `signal` aborts. */
const ABORT_ERROR = { name: 'AbortError', code: 'ABORT_ERR' };

export function directRequest(): RequestFn {
  /** Each scheme's client module and its agent, found once (a batch sends thousands of requests). */
  const clients = new Map<string, { client: typeof import('node:http') | typeof import('node:https'); agent: Agent }>();
  /** Each origin's header list (headerList), made on its first request. */
  const lists = new Map<string, { headers: Record<string, string>; list: string[] }>();
  return (target, { headers, abort, onSent }) => {
    const { protocol, hostname, port } = target.origin;
    let found = clients.get(protocol);
    if (!found) {
      // Not imported: an import of node:http reads all its exports, and on Node 22+ its WebSocket export
      // loads Node's own undici. https (and with it tls) only for an https URL.
      const client = protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
      clients.set(protocol, (found = { client, agent: new client.Agent({ keepAlive: true }) }));
    }
    const { client, agent } = found;
    // Options, not a URL: Node's client would convert the URL object into the same each request. Only
    // what differs from its defaults (GET, the agent's scheme): it copies the options key by key into
    // two dictionaries a request, and a URL's user name and password are there only when it has them.
    const { auth } = target;
    let listed = lists.get(target.origin.text);
    if (listed?.headers !== headers) lists.set(target.origin.text, (listed = { headers, list: headerList(headers, target.origin) }));
    // With a user name and password Node adds their Basic authorization unless the headers have one: the object then.
    const options =
      auth === undefined ? { hostname, port, path: target.path, headers: listed.list, agent } : { hostname, port, path: target.path, auth, headers, agent };
    return new Promise<RawResponse>((resolve, reject) => {
      const request = client.request(options, (response) => {
        response.on('error', ignore); // kept on the stream for its reader (RawResponse)
        resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: response });
      });
      // What the `signal` option would do (the error Node's own AbortError), without an AbortSignal a request.
      abort.onAbort((reason) => request.destroy(Object.assign(new Error('The operation was aborted', { cause: reason }), ABORT_ERROR)));
      // Before the answer: the request's promise fails. After it, the body's reader sees the error.
      request.on('error', reject);
      // Just before it is written: a new connection writes it first thing once connected (TLS: secured).
      // The socket is corked meanwhile: the request's bytes wait in it until what onSent returns settles.
      const connected = protocol === 'https:' ? 'secureConnect' : 'connect';
      // `on`, not `once` (a request is given one socket): once wraps and then removes each listener.
      if (onSent)
        request.on('socket', (socket) => {
          socket.cork();
          const uncork = () => socket.uncork();
          const send = () => {
            const recorded = onSent(true);
            if (recorded) recorded.then(uncork, uncork);
            else uncork();
          };
          if (socket.connecting) socket.prependOnceListener(connected, send);
          else send();
        });
      request.end();
    });
  };
}

/**
 * The headers as Node's client takes them ready-made, name and value in turn, with the Host header it
 * would add (by its rule: an IPv6 address in brackets, a port other than the scheme's). Given an object,
 * it stores each header in a table and then looks in it for Host, Authorization and Expect, a request
 * each; given a list, it validates each header as it writes it, as before, and no more.
 */
function headerList(headers: Record<string, string>, { hostname, port }: Origin): string[] {
  const list = Object.entries(headers).flat();
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'host')) return list;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  list.push('Host', port === undefined ? host : `${host}:${port}`);
  return list;
}

/** The response's own error listener: the error stays on the stream (`errored`) for its reader. */
const ignore = () => undefined;
