// A real forwarding proxy on 127.0.0.1, port 0, recording what it forwarded: absolute-form requests
// (`GET http://host:port/path`) are sent on, and CONNECT opens a TCP tunnel (how undici's ProxyAgent
// reaches https targets). `hosts` maps made-up names (`api.rep.test`) to the address the proxy
// connects to, so a test can reach a loopback server under a name that is not loopback; `connectStatus`
// answers every CONNECT with that status instead (a proxy that refuses the tunnel).
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface Forwarded {
  method: string;
  /** `host:port` the proxy connected to. */
  target: string;
  /** For absolute-form requests, the URL asked for. */
  url?: string;
}

export interface ForwardingProxy {
  /** `http://127.0.0.1:PORT`, for HTTP_PROXY / HTTPS_PROXY. */
  url: string;
  forwarded: Forwarded[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  hosts?: Record<string, string>;
  connectStatus?: number;
}

export async function startProxy(options: ProxyOptions = {}): Promise<ForwardingProxy> {
  const forwarded: Forwarded[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };

  const server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected');
      return;
    }
    forwarded.push({ method: req.method ?? 'GET', target: target.host, url: target.href });
    const upstream = request(target, { method: req.method, headers: withoutHopHeaders(req) }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('upstream failed')));
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    const [host, port] = splitHostPort(req.url ?? '');
    forwarded.push({ method: 'CONNECT', target: `${host}:${port}` });
    if (options.connectStatus !== undefined) {
      client.end(`HTTP/1.1 ${options.connectStatus} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    let connected = false;
    const upstream = connect(port, options.hosts?.[host] ?? host, () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    // As a real proxy does when it cannot reach the target: a 502 to the CONNECT.
    upstream.on('error', () => (!connected ? client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n') : client.destroy()));
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', track);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitHostPort(authority: string): [string, number] {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  return match ? [match[1] as string, Number(match[2])] : [authority, 443];
}

function withoutHopHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !/^(proxy-|connection$|keep-alive$)/i.test(name)) headers[name] = value;
  }
  return headers;
}
