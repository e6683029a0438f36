// Reading secrets and answers from the user: a hidden prompt on a terminal (nothing echoed), the
// first line of stdin otherwise, so `echo "$KEY" | rep login` works and the key never sits in argv.
import type { IO } from './io.js';
import { InterruptedError, UsageError } from './errors.js';

/** The longest line read as a key: keys are far shorter, and stdin may never end (`< /dev/zero`). */
export const MAX_LINE_BYTES = 4096;

const PIPE_HINT = 'pipe just the key: printf %s "$KEY" | rep login';

/**
 * Reads one line from a non-terminal stdin (up to the first newline or EOF), at most MAX_LINE_BYTES:
 * a longer line or binary data (a NUL byte) is a UsageError at once. `signal` stops the wait.
 */
export async function readFirstLine(io: IO, signal?: AbortSignal): Promise<string> {
  const stop = () => io.stdin.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    let buffered = Buffer.alloc(0);
    for await (const chunk of io.stdin) {
      buffered = Buffer.concat([buffered, typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)]);
      const newline = buffered.indexOf(0x0a);
      const line = newline === -1 ? buffered : buffered.subarray(0, newline);
      if (line.includes(0)) throw new UsageError('stdin does not hold an API key: it holds binary data', { hint: PIPE_HINT });
      if (line.length > MAX_LINE_BYTES) {
        throw new UsageError(`stdin does not hold an API key: its first line is longer than ${MAX_LINE_BYTES} bytes`, { hint: PIPE_HINT });
      }
      if (newline !== -1) {
        io.stdin.destroy();
        return lineText(line);
      }
    }
    if (signal?.aborted) throw new InterruptedError();
    return lineText(buffered);
  } catch (error) {
    throw signal?.aborted ? new InterruptedError() : error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/** A line's text without the CR of a CRLF ending. */
function lineText(line: Buffer): string {
  return line.toString('utf8').replace(/\r$/, '');
}

/** Asks on stderr and reads a line from the terminal; `hidden` echoes nothing (for keys); `signal` stops the wait. */
export async function ask(io: IO, question: string, options: { hidden: boolean; signal?: AbortSignal }): Promise<string> {
  const stdin = io.stdin as NodeJS.ReadStream;
  if (!options.hidden) {
    io.err(question);
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: stdin, terminal: false });
    try {
      return await rl.question('', options.signal ? { signal: options.signal } : {});
    } catch (error) {
      throw options.signal?.aborted ? new InterruptedError() : error;
    } finally {
      rl.close();
    }
  }
  return new Promise<string>((resolve, reject) => {
    let answer = '';
    const onAbort = () => finish(new InterruptedError()); // SIGTERM: raw mode turns Ctrl-C into a character
    const finish = (error?: Error) => {
      options.signal?.removeEventListener('abort', onAbort);
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.err('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\u0003') return finish(new InterruptedError()); // Ctrl-C in raw mode
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else if (char >= ' ') answer += char;
        if (answer.length > MAX_LINE_BYTES)
          return finish(new UsageError(`the API key typed is longer than ${MAX_LINE_BYTES} characters`, { hint: 'paste just the key' }));
      }
    };
    // Echo goes off before the prompt shows, so a key typed the moment it appears is not echoed.
    stdin.setRawMode?.(true);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.resume();
    io.err(question);
  });
}
