// Ctrl-C and SIGTERM during long synchronous work (drawing a big table): a signal handler runs only
// when the event loop gets a turn, so such work stops now and then at a checkpoint.
import { InterruptedError } from './errors.js';

/** Gives the event loop a turn, so a pending signal is heard; throws InterruptedError once `signal` is aborted. */
export async function checkpoint(signal: { readonly aborted: boolean } | undefined): Promise<void> {
  if (signal?.aborted) throw new InterruptedError();
  await new Promise((resolve) => setImmediate(resolve));
  if (signal?.aborted) throw new InterruptedError();
}
