// A local HTTP server that speaks the service's API over the built-in data set, for offline use and tests.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sandboxDataOn, type SandboxData } from './data.js';
import { describeWindow, FixedWindowLimiter, type RateDecision } from './ratelimit.js';
import { errorReply, MalformedQueryError, parseQuery, ROUTES, type Reply } from './routes.js';

/** The sandbox's key. It guards nothing, so printing it is fine. */
export const SANDBOX_KEY = 'rep_sandbox_key';

export interface SandboxOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default SANDBOX_KEY. */
  key?: string;
  /** Requests per window per key; default 100, the free tier. */
  limit?: number;
  /** Default one hour. */
  windowMs?: number;
  /** The only clock the sandbox reads (its rate limiter, and the day whose data it serves); default Date.now. */
  now?: () => number;
  /** Default '/api'. */
  basePath?: string;
  /** The Cache-Control of a good answer (errors are always no-store); default SANDBOX_CACHE_CONTROL. */
  cacheControl?: string;
}

export interface RunningSandbox {
  /** The base URL including the base path, e.g. http://127.0.0.1:PORT/api. */
  readonly url: string;
  readonly key: string;
  readonly port: number;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
// Not imported: importing node:http reads all its exports, and on Node 22+ its WebSocket loads Node's own
// undici, which then serves rep's requests in place of the bundled one (`--sandbox`).
const { createServer } = process.getBuiltinModule('node:http');

/** What a running sandbox answers from (its options resolved, its data set and rate limiter). */
interface SandboxState {
  readonly basePath: string;
  readonly keyHash: Buffer;
  readonly limiter: FixedWindowLimiter;
  readonly cacheControl: string;
  /** The data set of the current UTC day. */
  data(): SandboxData;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** '/api/' and 'api' become '/api'; '' and '/' become ''. */
function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `/${trimmed}`;
}

/** What the sandbox lets a client do with a good answer: keep it for five minutes, so `--sandbox` shows the cache at work. */
export const SANDBOX_CACHE_CONTROL = 'max-age=300';

function send(res: ServerResponse, reply: Reply, cacheControl: string): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(payload),
    // As a service would: an answer may be reused for five minutes (the data moves by day), an error never.
    'cache-control': reply.status === 200 ? cacheControl : 'no-store',
    ...reply.headers,
  });
  res.end(payload);
}

/** The route under the base path, without a trailing slash; undefined outside the base path. */
function routeOf(pathname: string, basePath: string): string | undefined {
  if (pathname !== basePath && !pathname.startsWith(`${basePath}/`)) return undefined;
  const route = pathname.slice(basePath.length);
  return route.length > 1 && route.endsWith('/') ? route.slice(0, -1) : route;
}

function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1];
}

function rateHeaders(decision: RateDecision, windowMs: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(Math.ceil(decision.resetAtMs / 1000)),
    // The IETF policy header carries the window, so clients can say "per hour" (or per minute) for sure.
    'ratelimit-policy': `"default";q=${decision.limit};w=${Math.ceil(windowMs / 1000)}`,
  };
}

/** Checks in the service's order: route, method, key, rate limit, then the endpoint itself. */
function answer(req: IncomingMessage, state: SandboxState): Reply {
  const rawUrl = req.url ?? '/';
  const queryStart = rawUrl.indexOf('?');
  const pathname = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart);
  const route = routeOf(pathname, state.basePath);
  const handler = route === undefined ? undefined : ROUTES.get(route);
  if (handler === undefined) return errorReply(404, 'not_found', `No endpoint at ${pathname}`);
  if (req.method !== 'GET') {
    return errorReply(405, 'method_not_allowed', `Method ${req.method ?? ''} not allowed; use GET`, { allow: 'GET' });
  }

  const header = req.headers.authorization;
  const token = bearerToken(header);
  if (token === undefined) {
    const message = header === undefined ? 'Missing API key' : 'Malformed Authorization header; expected: Bearer <key>';
    return errorReply(401, 'unauthorized', message, { 'www-authenticate': 'Bearer' });
  }
  if (!timingSafeEqual(sha256(token), state.keyHash)) {
    return errorReply(401, 'unauthorized', 'Invalid API key', { 'www-authenticate': 'Bearer error="invalid_token"' });
  }

  const decision = state.limiter.take(token);
  const headers = rateHeaders(decision, state.limiter.windowMs);
  if (!decision.allowed) {
    const { limit, windowMs } = state.limiter;
    const message = `Rate limit exceeded: ${limit} requests per ${describeWindow(windowMs)}`;
    return errorReply(429, 'rate_limited', message, { ...headers, 'retry-after': String(decision.retryAfterSeconds) });
  }

  let reply: Reply;
  try {
    reply = handler(parseQuery(queryStart === -1 ? '' : rawUrl.slice(queryStart + 1)), state.data());
  } catch (error) {
    if (!(error instanceof MalformedQueryError)) throw error;
    reply = errorReply(400, 'bad_request', error.message);
  }
  return { ...reply, headers: { ...reply.headers, ...headers } };
}

/** Starts the sandbox; resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const key = options.key ?? SANDBOX_KEY;
  const now = options.now ?? Date.now;
  const state: SandboxState = {
    basePath: normalizeBasePath(options.basePath ?? '/api'),
    keyHash: sha256(key),
    limiter: new FixedWindowLimiter(options.limit ?? 100, options.windowMs ?? 3_600_000, now),
    cacheControl: options.cacheControl ?? SANDBOX_CACHE_CONTROL,
    data: () => sandboxDataOn(now()),
  };

  const server = createServer((req, res) => {
    try {
      send(res, answer(req, state), state.cacheControl);
    } catch {
      // A bug must cost one request, never the process the CLI runs in.
      if (!res.headersSent) send(res, errorReply(500, 'internal', 'Internal sandbox error'), 'no-store');
      else res.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}${state.basePath}`,
    key,
    port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets would otherwise hold the process open until they time out.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
