// Reading secrets and answers from the user: a hidden prompt on a terminal (nothing echoed), the
// first line of stdin otherwise, so `echo "$KEY" | rep login` works and the key never sits in argv.
import type { IO } from './io.js';
import { InterruptedError } from './errors.js';

/** Reads one line from a non-terminal stdin (up to the first newline or EOF); `signal` stops the wait. */
export async function readFirstLine(io: IO, signal?: AbortSignal): Promise<string> {
  const stop = () => io.stdin.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    let buffered = '';
    for await (const chunk of io.stdin) {
      buffered += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
      const newline = buffered.search(/\r?\n/);
      if (newline !== -1) {
        io.stdin.destroy();
        return buffered.slice(0, newline);
      }
    }
    if (signal?.aborted) throw new InterruptedError();
    return buffered;
  } catch (error) {
    throw signal?.aborted ? new InterruptedError() : error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
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
