// A loopback HTTPS server with a fresh self-signed certificate for 127.0.0.1 (made by openssl: tests
// that need one skip where openssl is missing), counting the TCP connections it accepts.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export function hasOpenssl(): boolean {
  return spawnSync('openssl', ['version']).status === 0;
}

export interface TlsServer {
  /** `127.0.0.1:PORT` */
  host: string;
  /** The certificate, e.g. for NODE_EXTRA_CA_CERTS. */
  certFile: string;
  /** TCP connections accepted, whether or not their TLS handshake succeeded. */
  connections(): number;
  close(): Promise<void>;
}

/** Starts the server; its certificate (for 127.0.0.1 and `dnsNames`) and key are written into dir. */
export async function startTlsServer(dir: string, handler: RequestListener, dnsNames: string[] = []): Promise<TlsServer> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      `subjectAltName=${[...dnsNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',')}`,
    ],
    { stdio: 'ignore' },
  );
  const server: Server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, handler);
  let connections = 0;
  server.on('connection', () => connections++);
  server.on('tlsClientError', () => {}); // a client refusing the certificate is what some tests want
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    certFile,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
