// A purpose-built audit server for batch tests on 127.0.0.1, port 0: sandbox-like bodies for known
// names, 404 for the rest, random per-request delays, a request counter per name, a 429 after a set
// number of requests, and names it holds unanswered until the test releases them. Any other request
// is answered 599 and recorded as unexpected.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { makeTempHome, type TempHome } from './cli.js';

export interface BatchServerOptions {
  /** Names that exist; every other audited name is a 404. */
  companies: readonly string[];
  /** Each answer waits a random 0..maxDelayMs (default 0). */
  maxDelayMs?: number;
  /** Requests answered normally per window; later ones in the window get 429. */
  limit?: number;
  /** The window, starting at the first request (default 600 s: for most tests the limit never resets). */
  resetSeconds?: number;
  /** Names whose requests wait until `release(name)`. */
  hold?: readonly string[];
  /** Deterministic delays in tests that want them; default Math.random. */
  random?: () => number;
}

export interface BatchServer {
  baseUrl: string;
  /** Audited names, in the order the requests arrived. */
  received: string[];
  /** Requests per name. */
  count(name: string): number;
  /** Requests that were not `GET /api/audit?q=…`. */
  unexpected: string[];
  /** Resolves when a request for `name` has arrived (at once if one already has). */
  arrived(name: string): Promise<void>;
  release(name: string): void;
  close(): Promise<void>;
}

/** A body shaped like the sandbox's audit answer, derived from the name so tests can check it. */
export function auditBody(name: string): unknown {
  const score = 50 + (name.length % 50);
  return {
    company: { id: `c-${name.length}`, name, city: 'Madrid', category: 'Cafe' },
    score,
    score_scale: 100,
    sources: [
      { source: 'Yelp', rating: 4.5, reviews: 120 },
      { source: 'Zoon', rating: 4, reviews: 30 },
    ],
  };
}

export async function startBatchServer(options: BatchServerOptions): Promise<BatchServer> {
  const known = new Set(options.companies);
  const held = new Map<string, Array<() => void>>();
  const released = new Set<string>();
  const arrivals = new Map<string, Array<() => void>>();
  const counts = new Map<string, number>();
  const received: string[] = [];
  const unexpected: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const random = options.random ?? Math.random;
  const resetSeconds = options.resetSeconds ?? 600;
  let windowStart: number | undefined;
  let inWindow = 0;

  const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const payload = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers }).end(payload);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const name = url.searchParams.get('q');
    if (req.method !== 'GET' || url.pathname !== '/api/audit' || name === null) {
      unexpected.push(`${req.method} ${req.url}`);
      return reply(res, 599, { error: 'unexpected request' });
    }
    received.push(name);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const resolve of arrivals.get(name) ?? []) resolve();
    arrivals.delete(name);
    const now = Date.now();
    if (windowStart === undefined || now >= windowStart + resetSeconds * 1000) [windowStart, inWindow] = [now, 0];
    inWindow += 1;
    if (options.limit !== undefined && inWindow > options.limit) {
      const resetAt = windowStart + resetSeconds * 1000;
      return reply(res, 429, { error: 'rate_limited' }, {
        'retry-after': String(Math.max(1, Math.ceil((resetAt - now) / 1000))),
        'x-ratelimit-limit': String(options.limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
      });
    }
    const answer = () => (known.has(name) ? reply(res, 200, auditBody(name)) : reply(res, 404, { error: 'not_found', message: `no company named ${name}` }));
    const delayed = () => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) answer();
      }, Math.floor(random() * (options.maxDelayMs ?? 0)));
      timers.add(timer);
    };
    if (options.hold?.includes(name) && !released.has(name)) held.set(name, [...(held.get(name) ?? []), delayed]);
    else delayed();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    received,
    unexpected,
    count: (name) => counts.get(name) ?? 0,
    arrived: (name) =>
      counts.has(name) ? Promise.resolve() : new Promise((resolve) => arrivals.set(name, [...(arrivals.get(name) ?? []), resolve])),
    release(name) {
      released.add(name);
      for (const answer of held.get(name) ?? []) answer();
      held.delete(name);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Per test: a temp home, and a batch server closed after the test. Call at the top of a test file. */
export function useBatchFixture(): { home(): TempHome; serve(options: BatchServerOptions): Promise<BatchServer>; server(): BatchServer | undefined } {
  let home: TempHome | undefined;
  let server: BatchServer | undefined;
  beforeEach(() => {
    home = makeTempHome();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    home?.cleanup();
  });
  return {
    home: () => home as TempHome,
    serve: async (options) => (server = await startBatchServer(options)),
    server: () => server,
  };
}
