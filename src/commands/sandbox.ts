// `rep sandbox`: serve the built-in data set until Ctrl-C. The URL and key go to stdout (data a script
// may read); the "how to use it" talk goes to stderr.
import { signalOf } from '../api/abort-link.js';
import type { Deps } from '../deps.js';

export interface SandboxCommandOptions {
  port: number;
  host: string;
  /** Requests per key per window. */
  limit: number;
  /** The rate-limit window (`--window`). */
  windowMs: number;
}

export async function run(opts: SandboxCommandOptions, deps: Deps): Promise<void> {
  const { startSandbox } = await import('../sandbox/server.js');
  const sandbox = await startSandbox({ host: opts.host, port: opts.port, limit: opts.limit, windowMs: opts.windowMs });
  deps.io.out(`base_url=${sandbox.url}\napi_key=${sandbox.key}\n`);
  if (!deps.globals.quiet) {
    deps.io.err(
      `rep sandbox: serving the built-in data set at ${sandbox.url} (${opts.limit} requests per key per window)\n` +
        `  try: REP_BASE_URL=${sandbox.url} REP_API_KEY=${sandbox.key} rep audit "Кофейня Ромашка"\n` +
        `  press Ctrl-C to stop\n`,
    );
  }
  // A server's normal way to stop is Ctrl-C: close cleanly and exit 0.
  await new Promise<void>((resolve) => {
    if (deps.signal.aborted)
      resolve(); // Ctrl-C came while the server was starting
    else signalOf(deps.signal).addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
}
