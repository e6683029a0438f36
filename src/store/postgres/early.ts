// A connection begun before the driver is loaded. A run of the CLI that opens the team store uses it at
// once, but between the two come loading the driver and rep's store code: a few milliseconds in which
// the server could be forking the connection's backend and starting it up. So the CLI connects as it
// opens the store and, where no TLS is to be negotiated, sends the startup message too (the one the
// driver would send first: the same bytes, checked when the driver writes them); the driver then takes
// this socket for its first connection and finds the server's answer waiting. Imports nothing: a run
// of the local store loads this file too, and takes Node's net module only when it connects.
import type { Socket } from 'node:net';
import { socketPath, type StoreTarget } from './url.js';

export interface EarlyConnection {
  /** The socket, once, for the driver's first connection; undefined when it failed or closed meanwhile (the driver then makes its own). */
  take(): Socket | undefined;
  /** Closes it if the driver never took it. */
  discard(): void;
}

/** The socket a target connects through: a unix socket in its directory, or TCP. */
export function openSocket(target: StoreTarget): Socket {
  const { connect } = process.getBuiltinModule('node:net');
  const path = socketPath(target);
  const where = path ? { path } : { host: target.host, port: target.port };
  if (!startsInTheClear(target)) return connect(where);
  // In the clear (no TLS to hand the socket to), what arrives goes to the driver as 'data' events
  // emitted here, each read into a buffer of its own (Node's `onread`), not through the socket's
  // Readable; and pause() then stops reading at once (see stopReading). What arrives before the driver
  // listens (the server's answer to an early startup message) is held until it does, as a Readable would.
  let held: Buffer[] | undefined = [];
  const state = { ready: false };
  const untilReady = readyWatcher();
  const socket: Socket = connect({
    ...where,
    onread: {
      buffer: () => Buffer.allocUnsafe(READ_BYTES),
      callback: (bytes, buffer) => {
        const chunk = buffer.subarray(0, bytes) as Buffer;
        if (!state.ready) state.ready = untilReady(chunk);
        if (held) held.push(chunk);
        else socket.emit('data', chunk);
        return true;
      },
    },
  });
  socket.on('newListener', function deliver(event: string | symbol) {
    if (event !== 'data') return;
    socket.off('newListener', deliver);
    // Once the listener is on (it is added after 'newListener'), and before anything read later. A
    // promise's turn, not queueMicrotask, which makes an AsyncResource of its callback.
    void Promise.resolve().then(() => {
      const chunks = held ?? [];
      held = undefined;
      for (const chunk of chunks) socket.emit('data', chunk);
    });
  });
  readsOnItsOwn.set(socket, state);
  return socket;
}

/**
 * Follows the server's messages across reads (a type byte, then a length that counts itself and the
 * body) until its first ReadyForQuery ('Z'): true once it came. A socket in the clear never asks for
 * TLS, so the server's first byte starts a message.
 */
function readyWatcher(): (chunk: Buffer) => boolean {
  let header: number[] = [];
  let skip = 0;
  return (chunk) => {
    for (let at = 0; at < chunk.length; ) {
      if (skip > 0) {
        const taken = Math.min(skip, chunk.length - at);
        skip -= taken;
        at += taken;
        continue;
      }
      header.push(chunk[at++]!);
      if (header.length < 5) continue;
      if (header[0] === 0x5a) return true;
      skip = ((header[1]! << 24) | (header[2]! << 16) | (header[3]! << 8) | header[4]!) - 4;
      header = [];
    }
    return false;
  };
}

/** What one read of a socket in the clear may take (Node reads a stream 64 KiB at a time too). */
const READ_BYTES = 64 * 1024;

/** The sockets openSocket reads through `onread`, and whether the server has said it is ready on each. */
const readsOnItsOwn = new WeakMap<Socket, { ready: boolean }>();

/**
 * Reads no more from a socket the driver is done with (its Terminate sent): the server's close, once
 * read, would have Node destroy the socket, and net.js's destroy looks up process.stderr, which makes
 * the process's stderr stream, as the process ends and for nothing. A connection that never got to
 * ready (refused: a database that is not there) is closed instead: the driver's connect timer runs
 * until the socket closes, and with its close unread it held the process for the whole --timeout. A
 * socket with TLS is left as it was.
 */
export function stopReading(socket: Socket): void {
  const state = readsOnItsOwn.get(socket);
  if (state?.ready) socket.pause();
  else if (state) socket.destroy();
}

/** Whether the driver's first message on a new connection is its startup message (no TLS to ask for first). */
export function startsInTheClear(target: StoreTarget): boolean {
  return socketPath(target) !== undefined || target.sslmode === 'disable';
}

/**
 * The startup message (protocol 3.0) as Postgres.js writes it for the options connect.ts gives it: user,
 * database, client_encoding, then the connection settings (application_name first: the driver's own
 * default holds that place, and rep always sets it), each name and value ending in a NUL.
 */
export function startupMessage(target: StoreTarget): Buffer {
  const parameters = Object.assign(
    { user: target.user, database: target.database, client_encoding: 'UTF8' },
    { application_name: target.settings.application_name, ...target.settings },
  );
  const body = `${Object.entries(parameters)
    .filter(([, value]) => value)
    .map(([name, value]) => `${name}\u0000${value}`)
    .join('\u0000')}\u0000\u0000`;
  const message = Buffer.alloc(8 + Buffer.byteLength(body));
  message.writeInt32BE(message.length, 0);
  message.writeInt32BE(196608, 4); // protocol 3.0
  message.write(body, 8);
  return message;
}

export function connectEarly(target: StoreTarget): EarlyConnection {
  let socket: Socket | undefined = openSocket(target);
  let failed = false;
  // Until the driver takes it, a failure is only noted: the driver's own connection then meets it again and says it in rep's words.
  const fail = () => {
    failed = true;
  };
  socket.once('error', fail).once('close', fail);
  const sent = startsInTheClear(target) ? startupMessage(target) : undefined;
  if (sent) socket.write(sent);
  return {
    take() {
      const taken = socket;
      socket = undefined;
      if (!taken) return undefined;
      taken.off('error', fail).off('close', fail);
      if (failed) {
        taken.destroy();
        return undefined;
      }
      if (sent) skipFirstWrite(taken, sent);
      return taken;
    },
    discard() {
      socket?.destroy();
      socket = undefined;
    },
  };
}

/**
 * Makes the socket's first write the one already sent: the driver's startup message, which must be
 * byte for byte what was sent (else the connection fails loudly: it would be a bug of rep's, never
 * something to hide). When that message is all the driver wrote, nothing is written: the server may
 * have answered and closed by then (a database that is not there), and on a unix socket any write,
 * even of no bytes, then fails with EPIPE, which destroyed the socket with the refusal unread.
 */
function skipFirstWrite(socket: Socket, sent: Buffer): void {
  const write = socket.write;
  socket.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    socket.write = write;
    if (Buffer.isBuffer(chunk) && chunk.length >= sent.length && chunk.subarray(0, sent.length).equals(sent)) {
      if (chunk.length === sent.length) {
        const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
        if (done) process.nextTick(done);
        return true;
      }
      // The driver gathers what it writes in one turn: what follows the startup message goes on.
      return Reflect.apply(write, socket, [chunk.subarray(sent.length), ...rest]) as boolean;
    }
    socket.destroy(new Error('rep sent the store a startup message other than its driver’s'));
    return false;
  } as Socket['write'];
}
