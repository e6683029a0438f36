// A strict HTTP test server on 127.0.0.1, port 0. Each path is scripted with the answers it gives
// (status, headers, body, delay, or a fault: reset, destroy, truncated body, hang). Any request it was
// not told to expect is answered 599 and recorded, and close() then fails loudly with the list.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The raw request target, exactly as sent (`/api/audit?q=AT%26T`). */
  rawUrl: string;
  path: string;
  /** `q` decoded, when present. */
  q: string | null;
  headers: IncomingHttpHeaders;
  /** The client's port: requests on one connection share it. */
  remotePort: number | undefined;
}

export interface FaultResponse {
  status?: number;
  headers?: Record<string, string | string[]>;
  /** A string is sent as is; anything else as JSON (with a JSON content-type unless headers set one). */
  body?: unknown;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** Answer only once this settles (a test's gate: e.g. until the CLI has shown something); then wait delayMs. */
  after?: Promise<unknown>;
  /**
   * `reset`: TCP RST without an answer; `destroy`: close the socket without an answer; `hang`: never
   * answer; `truncate`: send headers with a content-length larger than the body, half the body, then close.
   */
  fault?: 'reset' | 'destroy' | 'hang' | 'truncate';
}

export type Responder = FaultResponse | ((request: RecordedRequest) => FaultResponse);

export interface FaultServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  port: number;
  /** `{origin}/api`, the base URL most tests use. */
  baseUrl: URL;
  /** Every request received, expected or not, in order. */
  requests: RecordedRequest[];
  /** Requests nothing was scripted for. */
  unexpected: RecordedRequest[];
  /** Expects one request per answer on `path` (e.g. `/api/audit`), answered in order. */
  expect(path: string, ...answers: Responder[]): FaultServer;
  /** Answers every request on `path` with the same answer, any number of times. */
  always(path: string, answer: Responder): FaultServer;
  /** Requests received on a path (all paths when omitted). */
  count(path?: string): number;
  /** Resolves once a request that `match`es has arrived (at once if one already has). */
  arrival(match: (request: RecordedRequest) => boolean): Promise<RecordedRequest>;
  /** Scripted answers not yet consumed, by path. */
  pending(): Record<string, number>;
  /** Throws when any unexpected request arrived. */
  assertNoUnexpected(): void;
  /** Closes every socket and the server; rejects when an unexpected request arrived. */
  close(options?: { allowUnexpected?: boolean }): Promise<void>;
}

interface Route {
  queue: Responder[];
  always?: Responder;
}

export async function startFaultServer(options: { apiPath?: string } = {}): Promise<FaultServer> {
  const routes = new Map<string, Route>();
  const requests: RecordedRequest[] = [];
  const unexpected: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const waiting = new Set<{ match: (request: RecordedRequest) => boolean; resolve: (request: RecordedRequest) => void }>();

  const server: Server = createServer((req, res) => {
    const rawUrl = req.url ?? '/';
    const parsed = new URL(rawUrl, 'http://127.0.0.1');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      rawUrl,
      path: parsed.pathname,
      q: parsed.searchParams.get('q'),
      headers: req.headers,
      remotePort: req.socket.remotePort,
    };
    requests.push(recorded);
    for (const waiter of waiting) {
      if (!waiter.match(recorded)) continue;
      waiting.delete(waiter);
      waiter.resolve(recorded);
    }
    const route = routes.get(parsed.pathname);
    const responder = route?.queue.shift() ?? route?.always;
    if (!responder) {
      unexpected.push(recorded);
      res.writeHead(599, { 'content-type': 'text/plain' }).end(`fault-server: unexpected request ${recorded.method} ${rawUrl}\n`);
      return;
    }
    const answer = typeof responder === 'function' ? responder(recorded) : responder;
    const send = () => {
      if (res.destroyed) return;
      if (!answer.delayMs) return respond(res, answer);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) respond(res, answer);
      }, answer.delayMs);
      timers.add(timer);
    };
    if (answer.after) void answer.after.then(send, () => res.destroy());
    else send();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fault-server: no port');
  const origin = `http://127.0.0.1:${address.port}`;

  const route = (path: string): Route => {
    let found = routes.get(path);
    if (!found) routes.set(path, (found = { queue: [] }));
    return found;
  };
  const describe = (list: RecordedRequest[]) => list.map((r) => `${r.method} ${r.rawUrl}`).join(', ');

  const fault: FaultServer = {
    origin,
    port: address.port,
    baseUrl: new URL(`${origin}${options.apiPath ?? '/api'}`),
    requests,
    unexpected,
    expect(path, ...answers) {
      route(path).queue.push(...answers);
      return fault;
    },
    always(path, answer) {
      route(path).always = answer;
      return fault;
    },
    count(path) {
      return path === undefined ? requests.length : requests.filter((r) => r.path === path).length;
    },
    arrival(match) {
      const found = requests.find(match);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.add({ match, resolve }));
    },
    pending() {
      const left: Record<string, number> = {};
      for (const [path, r] of routes) if (r.queue.length > 0) left[path] = r.queue.length;
      return left;
    },
    assertNoUnexpected() {
      if (unexpected.length > 0) throw new Error(`fault-server: unexpected requests: ${describe(unexpected)}`);
    },
    async close(closeOptions = {}) {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!closeOptions.allowUnexpected) fault.assertNoUnexpected();
    },
  };
  return fault;
}

function respond(res: ServerResponse, answer: FaultResponse): void {
  const socket = res.socket;
  if (answer.fault === 'hang') return;
  if (answer.fault === 'reset') {
    socket?.resetAndDestroy();
    return;
  }
  if (answer.fault === 'destroy') {
    socket?.destroy();
    return;
  }
  const headers: Record<string, string | string[]> = { ...(answer.headers ?? {}) };
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  let body = '';
  if (typeof answer.body === 'string') body = answer.body;
  else if (answer.body !== undefined) {
    body = JSON.stringify(answer.body);
    if (!hasType) headers['content-type'] = 'application/json';
  }
  const bytes = Buffer.from(body, 'utf8');
  if (answer.fault === 'truncate') {
    res.writeHead(answer.status ?? 200, { ...headers, 'content-length': String(bytes.length + 100) });
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    // Let the partial body leave before the socket goes.
    setImmediate(() => socket?.destroy());
    return;
  }
  res.writeHead(answer.status ?? 200, { 'content-length': String(bytes.length), ...headers });
  res.end(bytes);
}

/** A port nothing listens on (bound then released), for connection-refused tests. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('closedPort: no port');
  return address.port;
}
