// The team store's early connection (src/store/postgres/early.ts): the CLI connects, and sends the
// startup message, before the driver loads; the driver then takes that socket. Against a real cluster
// (SCRAM over TCP, trust over the unix socket), a loopback listener that only records bytes, and a
// unix-socket server in a worker thread that refuses as PostgreSQL does.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect } from '../src/store/postgres/connect.js';
import { connectEarly, startupMessage, startsInTheClear, stopReading, type EarlyConnection } from '../src/store/postgres/early.js';
import { openStore } from '../src/store/open.js';
import { parseStoreUrl, type StoreTarget } from '../src/store/postgres/url.js';
import { makeTempHome, runInProcess } from './helpers/cli.js';
import { ADMIN_PASSWORD, postgresAvailable, sharedPostgres, type PostgresCluster } from './helpers/postgres.js';

/** A loopback listener that keeps what each connection sent; it never answers, or answers the first bytes with `reply` (and never closes). */
async function recorder({
  reply,
}: {
  reply?: Buffer;
} = {}): Promise<{ server: Server; port: number; received: () => Promise<Buffer>; closed: () => Promise<void> }> {
  const chunks: Buffer[] = [];
  let connection: Socket | undefined;
  const connected = new Promise<Socket>((resolve) => {
    const server = createServer((socket) => {
      connection = socket;
      socket.on('data', (chunk) => {
        if (reply && chunks.length === 0) socket.write(reply);
        chunks.push(chunk);
      });
      resolve(socket);
    });
    servers.push(server);
  });
  const server = servers.at(-1)!;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as { port: number }).port,
    async received() {
      await connected;
      for (let i = 0; i < 200 && Buffer.concat(chunks).length < 8; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      const all = Buffer.concat(chunks);
      return all.subarray(0, all.readInt32BE(0));
    },
    async closed() {
      const socket = connection ?? (await connected);
      if (!socket.closed) await once(socket, 'close');
    },
  };
}
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

const target = (url: string, env: Record<string, string> = {}): StoreTarget => parseStoreUrl(url, env);

/**
 * A unix-socket server for a worker thread (workerData: path, flags, reply): it posts once listening;
 * to a connection's first bytes it answers `reply` and closes, once flags[0] is set, then sets flags[1].
 */
const REFUSING_SERVER = `
const { createServer } = require('node:net');
const { parentPort, workerData: { path, flags, reply } } = require('node:worker_threads');
createServer((socket) => {
  socket.once('data', async () => {
    await Atomics.waitAsync(flags, 0, 0).value;
    socket.on('close', () => (Atomics.store(flags, 1, 1), Atomics.notify(flags, 1)));
    socket.write(reply, () => socket.destroy());
  });
}).listen(path, () => parentPort.postMessage('listening'));
`;

/** A server's ErrorResponse (protocol 3.0): severity, SQLSTATE and message. */
function errorResponse(code: string, message: string): Buffer {
  const body = Buffer.from(`SFATAL\0C${code}\0M${message}\0\0`);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

describe('the early startup message', () => {
  it('is the driver’s own, byte for byte, with settings and an application name', async () => {
    for (const query of ['sslmode=disable', 'sslmode=disable&application_name=nightly&options=-c%20statement_timeout%3D5000%20-c%20search_path%3Drep']) {
      const listener = await recorder();
      const aimed = target(`postgres://ci_reader@127.0.0.1:${listener.port}/team_db?${query}`);
      const pool = await connect(aimed, { connectTimeout: 5 });
      const pending = pool.sql`select 1`.catch(() => undefined); // the listener never answers
      expect(await listener.received()).toEqual(startupMessage(aimed));
      await pool.sql.end({ timeout: 0 });
      await pending;
    }
  });

  it('is sent only where no TLS is asked for first: a unix socket, or sslmode=disable', () => {
    expect(startsInTheClear(target('postgres://u@127.0.0.1:5432/d?sslmode=disable'))).toBe(true);
    expect(startsInTheClear(target('postgres:///d?host=/var/run/postgresql&user=u'))).toBe(true);
    expect(startsInTheClear(target('postgres://u@db.example:5432/d?sslmode=require'))).toBe(false);
    expect(startsInTheClear(target('postgres://u@db.example:5432/d'))).toBe(false); // prefer, libpq's default
  });

  it('a first write other than the message sent fails the connection rather than reach the server', async () => {
    const listener = await recorder();
    const early = connectEarly(target(`postgres://u@127.0.0.1:${listener.port}/d?sslmode=disable`));
    const socket = early.take()!;
    const failed = once(socket, 'error');
    socket.write(Buffer.from('not the startup message'));
    expect(String((await failed)[0])).toContain('startup message other than its driver’s');
  });

  it('the startup message as the whole of the driver’s first write puts nothing more on the socket; a callback is still called', async () => {
    const listener = await recorder();
    const aimed = target(`postgres://u@127.0.0.1:${listener.port}/d?sslmode=disable`);
    const early = connectEarly(aimed);
    await listener.received();
    const socket = early.take()!;
    const written = new Promise<void>((resolve) => expect(socket.write(startupMessage(aimed), () => resolve())).toBe(true));
    await written;
    expect(socket.bytesWritten).toBe(startupMessage(aimed).length);
    socket.destroy();
  });

  it('an early connection the driver never took is closed by discard()', async () => {
    const listener = await recorder();
    const early = connectEarly(target(`postgres://u@127.0.0.1:${listener.port}/d?sslmode=disable`));
    await listener.received();
    early.discard();
    await listener.closed();
    expect(early.take()).toBeUndefined();
  });

  it('a store opened with connectNow and closed unused closes its early connection (no socket left to hold the process)', async () => {
    const listener = await recorder();
    const url = `postgres://u@127.0.0.1:${listener.port}/d?sslmode=disable`;
    const store = openStore(url, { connectNow: true, home: tmpdir() });
    expect(await listener.received()).toEqual(startupMessage(parseStoreUrl(url, {}, tmpdir()))); // out at once, before any use
    await store.close();
    await listener.closed(); // else this waits out the test's timeout
  });

  it('a connection refused before it was ready, its close not read yet, is closed as the store ends', async () => {
    // A refusal (a database that is not there) whose close the process has not read when the store
    // ends: paused, its socket stayed open, and the driver's connect timer with it held the process for
    // the whole --timeout (30 s by default). The listener answers the startup message and never closes.
    const listener = await recorder({ reply: errorResponse('3D000', 'database "d" does not exist') });
    const connects = vi.spyOn(process.getBuiltinModule('node:net'), 'connect'); // counted, not replaced
    try {
      const store = openStore(`postgres://u@127.0.0.1:${listener.port}/d?sslmode=disable`, { connectNow: true, home: tmpdir(), timeout: 30 });
      await expect(store.history.names('')).rejects.toThrow('database "d" does not exist');
      await store.close();
      expect(connects).toHaveBeenCalledTimes(1);
      expect((connects.mock.results[0]!.value as Socket).destroyed).toBe(true);
    } finally {
      connects.mockRestore();
    }
  });

  it('a refusal the server sent and closed on before the driver’s turn to write is what rep says, not a lost connection', async () => {
    // PostgreSQL answers a startup message for a database that is not there (trust, on the unix
    // socket: no password asked first) and closes at once. Where that happens after the early startup
    // message went out and before this process read anything, a write of the driver's then failed with
    // EPIPE, a unix socket's answer to any write once its peer is gone, and the socket with the refusal
    // unread was destroyed: "the connection … was lost". Seen under load, and with a module-load hook
    // (a thread of its own on Node 20): 121 of 300 runs of `rep history`. Here the order is made
    // certain: a server in a worker thread answers only once the driver has taken the socket, and any
    // write on the socket after the startup message waits until the server has closed.
    const dir = mkdtempSync(join(tmpdir(), 'rep-refused-'));
    const flags = new Int32Array(new SharedArrayBuffer(8)); // [the driver took the socket, the server closed]
    const server = new Worker(REFUSING_SERVER, {
      eval: true,
      workerData: { path: join(dir, '.s.PGSQL.5432'), flags, reply: errorResponse('3D000', 'database "d" does not exist') },
    });
    const net = process.getBuiltinModule('node:net');
    const connect = net.connect;
    const connects = vi.spyOn(net, 'connect').mockImplementation(((...args: Parameters<typeof connect>) => {
      const socket = connect(...args);
      const write = socket.write;
      let writes = 0;
      socket.write = function (this: Socket, ...written: unknown[]) {
        if (++writes > 1 && !this.connecting) Atomics.wait(flags, 1, 0, 10_000);
        return Reflect.apply(write, this, written) as boolean;
      } as Socket['write'];
      socket.on('newListener', (event) => {
        if (event !== 'data') return;
        setImmediate(() => {
          Atomics.store(flags, 0, 1);
          Atomics.notify(flags, 0);
        });
      });
      return socket;
    }) as typeof connect);
    const home = makeTempHome();
    try {
      await once(server, 'message'); // listening
      const { code, stderr } = await runInProcess(['history', 'acme'], { home, env: { REP_STORE: `postgres:///d?host=${dir}&port=5432&user=u` } });
      expect([code, stderr]).toEqual([8, `rep: the store at u@${dir}/.s.PGSQL.5432/d refused the connection: database "d" does not exist\n`]);
      expect(connects).toHaveBeenCalledTimes(1);
    } finally {
      connects.mockRestore();
      home.cleanup();
      await server.terminate();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('one that fails (nothing listening) fails as the driver’s own connection would: connection refused', async () => {
    const listener = await recorder();
    const port = listener.port;
    listener.server.close();
    await once(listener.server, 'close');
    const aimed = target(`postgres://u@127.0.0.1:${port}/d?sslmode=disable`);
    const pool = await connect(aimed, { early: connectEarly(aimed), max: 1, connectTimeout: 5 });
    try {
      await expect(pool.sql`select 1`).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await pool.sql.end({ timeout: 0 });
    }
  });
});

const available = postgresAvailable();
let cluster: PostgresCluster;
beforeAll(async () => {
  if (available) cluster = await sharedPostgres();
}, 60_000);

describe.skipIf(!available)('the early connection on a real server', () => {
  /** An early connection that tells which socket it handed over. */
  const watched = (early: EarlyConnection) => {
    const taken: Socket[] = [];
    return {
      taken,
      early: {
        take: () => {
          const socket = early.take();
          if (socket) taken.push(socket);
          return socket;
        },
        discard: () => early.discard(),
      },
    };
  };

  it('the driver’s first connection is the early one, startup sent ahead: over TCP with SCRAM, and over the unix socket', async () => {
    const database = await cluster.createDatabase();
    const urls = [cluster.url(database), `postgres:///${database}?host=${cluster.socketDir}&port=${cluster.port}&user=postgres`];
    for (const url of urls) {
      const aimed = parseStoreUrl(url, { PGPASSWORD: ADMIN_PASSWORD });
      expect(startsInTheClear(aimed)).toBe(true);
      const { early, taken } = watched(connectEarly(aimed));
      const pool = await connect(aimed, { early, max: 1 });
      try {
        const [row] = await pool.sql<Array<{ user: string; app: string }>>`select current_user as user, current_setting('application_name') as app`;
        expect(row).toEqual({ user: 'postgres', app: 'rep' });
        expect(taken).toHaveLength(1);
        expect(pool.sockets.has(taken[0]!)).toBe(true);
      } finally {
        // Ready (the server said so): as the store ends (session.end) it is only paused, its close left unread.
        const ended = pool.sql.end();
        stopReading(taken[0]!);
        expect([taken[0]!.isPaused(), taken[0]!.destroyed]).toEqual([true, false]);
        taken[0]!.destroy(); // the close the driver waits for
        await ended;
      }
    }
  });

  it('with sslmode=prefer (libpq’s default) only the socket is early: the driver asks for TLS on it, and goes on in the clear when the server has none', async () => {
    const database = await cluster.createDatabase();
    const aimed = parseStoreUrl(cluster.url(database).replace('sslmode=disable', 'sslmode=prefer'), { PGPASSWORD: ADMIN_PASSWORD });
    expect(startsInTheClear(aimed)).toBe(false);
    const { early, taken } = watched(connectEarly(aimed));
    const pool = await connect(aimed, { early, max: 1 });
    try {
      const [row] = await pool.sql<Array<{ ssl: boolean }>>`select ssl from pg_stat_ssl where pid = pg_backend_pid()`;
      expect(row).toEqual({ ssl: false });
      expect(taken).toHaveLength(1);
      expect(pool.sockets.has(taken[0]!)).toBe(true);
    } finally {
      await pool.sql.end();
    }
  });

  it('a wrong password on an early connection is refused as the driver’s own would be', async () => {
    const database = await cluster.createDatabase();
    const aimed = parseStoreUrl(cluster.url(database), { PGPASSWORD: 'wrong-pass-5150' });
    const pool = await connect(aimed, { early: connectEarly(aimed), max: 1 });
    try {
      await expect(pool.sql`select 1`).rejects.toMatchObject({ code: '28P01' });
    } finally {
      await pool.sql.end();
    }
  });
});
