// The audit route of a strict test server (fault-server.ts) for batch tests: sandbox-like bodies for
// known names, 404 for the rest, random per-request delays, a 429 after a set number of requests in a
// window, and names held unanswered until the test releases them. Every other request is unexpected.
import type { FaultResponse, FaultServer } from './fault-server.js';

export interface CompanyAuditOptions {
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

export interface CompanyAudits {
  /** Audited names, in the order the requests arrived. */
  received(): string[];
  /** Requests for a name. */
  count(name: string): number;
  /** Resolves when a request for `name` has arrived (at once if one already has). */
  arrived(name: string): Promise<void>;
  release(name: string): void;
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

/** Answers `GET /api/audit?q=NAME` on `server` as `options` say. */
export function serveCompanyAudits(server: FaultServer, options: CompanyAuditOptions): CompanyAudits {
  const known = new Set(options.companies);
  const releases = new Map<string, { released: Promise<void>; release: () => void }>();
  const random = options.random ?? Math.random;
  const resetSeconds = options.resetSeconds ?? 600;
  let windowStart: number | undefined;
  let inWindow = 0;
  const gate = (name: string) => {
    let found = releases.get(name);
    if (!found) {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      releases.set(name, (found = { released, release }));
    }
    return found;
  };

  server.always('/api/audit', (request): FaultResponse => {
    const name = request.q;
    if (name === null) return { status: 400, body: { error: 'no q' } };
    const now = Date.now();
    if (windowStart === undefined || now >= windowStart + resetSeconds * 1000) [windowStart, inWindow] = [now, 0];
    inWindow += 1;
    if (options.limit !== undefined && inWindow > options.limit) {
      const resetAt = windowStart + resetSeconds * 1000;
      const headers = {
        'retry-after': String(Math.max(1, Math.ceil((resetAt - now) / 1000))),
        'x-ratelimit-limit': String(options.limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
      };
      return { status: 429, headers, body: { error: 'rate_limited' } };
    }
    const notFound = { status: 404, body: { error: 'not_found', message: `no company named ${name}` } };
    const answer: FaultResponse = known.has(name) ? { body: auditBody(name) } : notFound;
    const delayMs = Math.floor(random() * (options.maxDelayMs ?? 0));
    return { ...answer, delayMs, ...(options.hold?.includes(name) ? { after: gate(name).released } : {}) };
  });

  const audits = () => server.requests.filter((request) => request.path === '/api/audit');
  return {
    received: () => audits().map((request) => request.q ?? ''),
    count: (name) => audits().filter((request) => request.q === name).length,
    arrived: async (name) => {
      await server.arrival((request) => request.path === '/api/audit' && request.q === name);
    },
    release: (name) => gate(name).release(),
  };
}
