// Purpose-built servers for the security tests, on top of the strict fault server: one whose bodies
// try to drive the terminal, and one that answers every API path with a fixed body and records
// the requests (and their Authorization headers) it got, and a bare TCP listener that counts connections.
import { createServer, type Socket } from 'node:net';
import { startFaultServer, type FaultResponse, type FaultServer } from './fault-server.js';

/** Terminal-driving text a hostile or broken server might send, each in its own field. */
export const HOSTILE = {
  sgr: '\u001b[31mRED\u001b[0m',
  osc8: '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007',
  title: '\u001b]0;pwned title\u0007',
  c1csi: '\u009b2J',
  bidi: 'abc\u202egnp.exe',
  nul: 'nul\u0000byte',
};
const ALL = Object.values(HOSTILE).join(' ');

/** Control bytes and bidi marks that must never reach a terminal or a CSV cell. */
export const TERMINAL_ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const HOSTILE_BODIES = {
  audit: {
    company: { id: 'c-1', name: `${HOSTILE.sgr} Hostile ${HOSTILE.osc8}`, city: HOSTILE.title, category: HOSTILE.bidi },
    score: 4.2,
    sources: [
      { source: `${HOSTILE.c1csi} maps`, rating: 4.5, reviews: 10 },
      { source: `=HYPERLINK("https://evil.example","x")`, rating: 3, reviews: 2 },
      { source: '+1+1', rating: 2, reviews: 1 },
      { source: '-2+3', rating: 1, reviews: 1 },
      { source: '@SUM(A1)', rating: 5, reviews: 1 },
      { source: HOSTILE.nul, rating: 4, reviews: 3 },
    ],
    note: ALL,
  },
  search: {
    companies: [{ id: 'c-1', name: HOSTILE.sgr, city: HOSTILE.osc8, category: HOSTILE.bidi, score: 3 }],
    cities: [{ name: HOSTILE.title, companies: 1 }],
    categories: [{ name: `=cmd|' /C calc'!A0 ${HOSTILE.c1csi}`, companies: 1 }],
  },
  pulse: { index: 3.3, companies: 1, label: ALL },
  error: { error: { code: 'boom', message: `exploded ${ALL}` } },
};

/**
 * A server answering audit, search and pulse with HOSTILE_BODIES (audit `fail`: a 500 with a hostile
 * JSON message; search `raw`: a 502 with raw hostile text).
 */
export async function startHostileServer(): Promise<FaultServer> {
  const server = await startFaultServer();
  const json = (body: unknown, status = 200): FaultResponse => ({ status, body });
  return server
    .always('/api/audit', (request) => (request.q === 'fail' ? json(HOSTILE_BODIES.error, 500) : json(HOSTILE_BODIES.audit)))
    .always('/api/search', (request) =>
      request.q === 'raw' ? { status: 502, headers: { 'content-type': 'text/plain' }, body: `bad gateway ${ALL}` } : json(HOSTILE_BODIES.search),
    )
    .always('/api/pulse', json(HOSTILE_BODIES.pulse));
}

/** A server answering every endpoint with `answer`, recording each request's headers. */
export async function startRecordingServer(answer: FaultResponse = { body: { index: 50 } }): Promise<FaultServer> {
  const server = await startFaultServer();
  for (const endpoint of ['audit', 'search', 'pulse']) server.always(`/api/${endpoint}`, answer);
  return server;
}

export interface ConnectionCounter {
  /** `http://127.0.0.1:PORT`, e.g. for HTTP_PROXY: any attempt to use it is counted. */
  origin: string;
  connections(): number;
  close(): Promise<void>;
}

/**
 * Counts TCP connections, and refuses each at once with a 502 (what a proxy says when it cannot reach
 * the target) before closing it: proves that nothing was sent, whatever the protocol. (A connection
 * dropped unanswered can make an HTTP client reconnect over and over instead of failing.)
 */
export async function startConnectionCounter(): Promise<ConnectionCounter> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count++;
    socket.on('error', () => {});
    socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
