// A TCP relay on 127.0.0.1, port 0, in front of a real server (a PostgreSQL cluster): it forwards
// every byte both ways until cut(), which is a network partition as a client meets it: the
// connections under way are cut, and every new one is taken and then never answered (no refusal,
// no reset), so only the client's connect timeout ends it; until heal(). It counts connections.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface Relay {
  port: number;
  /** Connections taken since start, and since cut(). */
  readonly connections: number;
  readonly connectionsSinceCut: number;
  /** From now on: every connection under way is cut, every new one hangs unanswered. */
  cut(): void;
  /** The partition over: the hanging connections are cut, and new ones are forwarded again. */
  heal(): void;
  close(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  let connections = 0;
  let sinceCut = 0;
  let isCut = false;
  const server = createServer((client) => {
    track(client);
    connections += 1;
    if (isCut) {
      sinceCut += 1;
      return; // held: nothing is read, written or closed until the client gives up
    }
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    get connectionsSinceCut() {
      return sinceCut;
    },
    cut() {
      isCut = true;
      for (const socket of sockets) socket.destroy();
    },
    heal() {
      isCut = false;
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
