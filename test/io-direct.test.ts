// directOutput (src/io.ts): stdout and stderr written with writeSync when they are a file, /dev/null, a
// pipe or a socket. Real descriptors: a file, devices, and a FIFO left non-blocking and full, where
// the writes must go on through Node's stream, in order, nothing lost.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { directOutput } from '../src/io.js';

let dir: string | undefined;
const descriptors: number[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const fd of descriptors.splice(0)) closeSync(fd);
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const open = (path: string, flags: number | string) => {
  const fd = openSync(path, flags);
  descriptors.push(fd);
  return fd;
};
const noStream = (): NodeJS.WriteStream => {
  throw new Error('no stream was to be made');
};

describe('directOutput', () => {
  it('writes a file whole, and calls back once written', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rep-direct-'));
    const file = join(dir, 'out.txt');
    const output = directOutput(open(file, 'w'), noStream)!;
    expect(output).toBeDefined();
    const text = `${'Кофейня Ромашка, '.repeat(5000)}\n`;
    expect(output.write(text)).toBe(true);
    await new Promise<void>((resolve) => output.write('', resolve));
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(output.writableNeedDrain).toBe(false);
  });

  it('takes /dev/null, but no other device', () => {
    expect(directOutput(open('/dev/null', 'w'), noStream)).toBeDefined();
    expect(directOutput(open('/dev/zero', 'w'), noStream)).toBeUndefined();
  });

  it('reports a failed write once, later, and writes nothing after it (a read-only file: EBADF)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rep-direct-'));
    const file = join(dir, 'read-only.txt');
    open(file, 'w');
    const output = directOutput(open(file, 'r'), noStream)!;
    const errors: string[] = [];
    output.on('error', (error) => errors.push(error.code ?? ''));
    expect(output.write('a')).toBe(false);
    expect(errors).toEqual([]); // not yet: as a stream reports it
    expect(output.write('b')).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual(['EBADF']);
  });

  it("goes on through Node's stream when a non-blocking pipe is full (EAGAIN): every byte, in order", async () => {
    dir = mkdtempSync(join(tmpdir(), 'rep-direct-'));
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Read and write on one non-blocking open file description, as a parent may hand it to rep. The
    // sockets own (and close) the two descriptors of this test.
    const writeEnd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    let made = 0;
    const output = directOutput(writeEnd, () => {
      made += 1;
      const socket = new Socket({ fd: writeEnd, readable: false, writable: true });
      sockets.push(socket);
      return socket as unknown as NodeJS.WriteStream;
    })!;
    const errors: unknown[] = [];
    output.on('error', (error) => errors.push(error));
    const lines = Array.from({ length: 4000 }, (_, i) => `${JSON.stringify({ line: i, text: 'x'.repeat(60) })}\n`);
    const expected = lines.join('');
    expect(Buffer.byteLength(expected)).toBeGreaterThan(4 * 65536); // far more than a pipe holds
    for (const line of lines) output.write(line); // nobody reads yet: the pipe fills
    expect(made).toBe(1);
    const written = new Promise<void>((resolve) => output.write('', resolve));
    const reader = new Socket({ fd: openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
    sockets.push(reader);
    let received = '';
    await new Promise<void>((resolve) => {
      reader.setEncoding('utf8').on('data', (chunk: string) => {
        received += chunk;
        if (received.length >= expected.length) resolve();
      });
    });
    await written;
    expect(received).toBe(expected);
    expect(errors).toEqual([]);
  });
});
