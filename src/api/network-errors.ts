// Network errors: what Node's client and undici throw when a request never gets a whole answer becomes
// one NetworkError naming the cause (refused, DNS, TLS, reset, cut off, timeout) and what to try.
import { type HintReason, NetworkError, statusLine } from './errors.js';
import type { ProxyRoute } from './proxy.js';

/** The phase a request failed in: a reset while the body streams in is an answer cut off. */
export type Phase = 'connect' | 'body';

const TLS_CODE = /^(?:CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$|UND_ERR_PRX_TLS$)/;
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);

/** The first error code found on an error, its causes, or the errors of an AggregateError. */
export function errorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    // undici wraps a socket failure as UND_ERR_SOCKET; a more precise code may sit on its cause.
    if (code === 'UND_ERR_SOCKET') return errorCode(cause, depth + 1) ?? code;
    return code;
  }
  if (Array.isArray(errors))
    for (const inner of errors) {
      const found = errorCode(inner, depth + 1);
      if (found) return found;
    }
  return errorCode(cause, depth + 1);
}

/** Whether a failed request never reached a server (refused, DNS, TLS, unreachable): it is not counted. */
export function neverSent(error: unknown): boolean {
  const code = errorCode(error);
  if (tunnelStatus(error) !== undefined) return true;
  return code !== undefined && (code === 'ECONNREFUSED' || DNS_CODES.has(code) || TLS_CODE.test(code) || UNREACHABLE_CODES.has(code));
}

/** The status a proxy answered a CONNECT with, when that is why the request failed (undici says it in words only). */
function tunnelStatus(error: unknown): number | undefined {
  const status = error instanceof Error ? /^Proxy response \((\d{3})\) !== 200/.exec(error.message)?.[1] : undefined;
  return status === undefined ? undefined : Number(status);
}

/** A failure of the proxy itself (refused, unknown host, a CONNECT answered with an error), named as the proxy's. */
function proxyError(error: unknown, code: string | undefined, url: URL, proxy: ProxyRoute): NetworkError | undefined {
  const from = `from ${proxy.variable}`;
  const around = `check ${proxy.variable}, or add ${url.hostname} to NO_PROXY to go around it`;
  if (code === 'ECONNREFUSED') {
    return new NetworkError(`cannot connect to the proxy ${hostAndPort(proxy.url)} ${from} (connection refused)`, {
      hint: `is the proxy running? ${around}`,
      cause: error,
    });
  }
  if (code !== undefined && DNS_CODES.has(code)) {
    return new NetworkError(`cannot resolve the proxy host ${proxy.url.hostname} ${from}`, {
      hint: `check the host name in ${proxy.variable}, and your network or DNS`,
      cause: error,
    });
  }
  const status = tunnelStatus(error);
  if (status === undefined) return undefined;
  return new NetworkError(`the proxy ${hostAndPort(proxy.url)} ${from} answered ${statusLine(status)} to the tunnel to ${hostAndPort(url)}`, {
    hint:
      status === 407
        ? `the proxy wants credentials: put them in ${proxy.variable} (http://USER:PASSWORD@HOST:PORT)`
        : `the proxy will not reach ${url.hostname}: ${around}`,
    cause: error,
    // A gateway's failure may pass; a refusal or a demand for credentials is the same on a retry.
    retryable: status >= 502 && status <= 504,
  });
}

/** A NetworkError for a failed request to url. */
export function networkError(error: unknown, url: URL, phase: Phase, proxy?: ProxyRoute): NetworkError {
  const code = errorCode(error);
  const ofProxy = proxy && phase === 'connect' ? proxyError(error, code, url, proxy) : undefined;
  if (ofProxy) return ofProxy;
  const host = url.hostname;
  const options = (hint: string, reason?: HintReason) => ({ hint, cause: error, ...(reason ? { reason } : {}) });
  if (code === 'ECONNREFUSED') {
    return new NetworkError(
      `cannot connect to ${hostAndPort(url)} (connection refused)`,
      options('is the server running? check the baseUrl option', 'refused'),
    );
  }
  if (code !== undefined && DNS_CODES.has(code)) {
    return new NetworkError(`cannot resolve ${host}`, options('check the host name in the baseUrl option, and your network or DNS', 'dns'));
  }
  if (code && TLS_CODE.test(code)) {
    // A certificate or protocol the client refuses is refused again on a retry.
    return new NetworkError(`TLS handshake with ${host} failed (${code})`, {
      ...options("check the base URL's host and the system's certificates (NODE_EXTRA_CA_CERTS)"),
      retryable: false,
    });
  }
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || (phase === 'body' && code !== undefined && RESET_CODES.has(code))) {
    return new NetworkError(`the answer from ${host} was cut off`, options('try again; the retries option retries automatically', 'retries'));
  }
  if (code !== undefined && RESET_CODES.has(code)) {
    return new NetworkError(`the connection to ${host} was reset`, options('try again; the retries option retries automatically', 'retries'));
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new NetworkError(`no answer from ${host} (timed out)`, options('raise the timeout option, or check your network', 'timeout'));
  }
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return new NetworkError(`cannot reach ${hostAndPort(url)} (${code})`, options('check your network and the baseUrl option', 'unreachable'));
  }
  const detail = code ?? (error instanceof Error ? error.message.split('\n')[0] : undefined) ?? 'unknown error';
  return new NetworkError(`the request to ${host} failed (${detail})`, options('check your network, proxy settings and the baseUrl option', 'network'));
}

/** The timeout message: `no answer from HOST within 30 s`. */
export function timeoutError(url: URL, timeoutMs: number): NetworkError {
  const seconds = Number((timeoutMs / 1000).toFixed(timeoutMs < 1000 ? 1 : 0));
  return new NetworkError(`no answer from ${url.hostname} within ${seconds} s`, {
    hint: 'raise the timeout option (seconds), or check your network',
    reason: 'timeout',
  });
}

/** `host:port` with the scheme's default port spelled out, for connection messages. */
function hostAndPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}
