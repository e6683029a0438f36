// Where a batch's many file writes run (a series file a new name, an answer entry an answer): in place,
// on the event loop, for the first OFF_THREAD_FROM of a process; after that, on the file worker's thread
// (file-worker.ts, a leaf loaded then), so that a long batch's requests go on while the kernel makes its
// files. A single audit or a short batch never starts the thread. Either way the caller's promise settles
// once the write is done (or failed), by file-ops.ts's one definition of each write.
import { inPlace, runFileJob, type FileJob, type FileJobResult } from './file-ops.js';
import type { FileWorker } from './file-worker.js';

/** Writes made in place before the thread takes over: more than a short batch makes, fewer than a long one's start. */
export const OFF_THREAD_FROM = 256;

let writes = 0;
let worker: Promise<FileWorker | undefined> | undefined;

/** Appends text to the log at path (append-log.ts's appendToLog); the size after. Rejects when it cannot. */
export async function appendToLogSoon(path: string, text: string): Promise<number> {
  return (await run({ op: 'append', path, text })) as number;
}

/** Creates path with text unless something is there (files.ts's createPrivateFile): whether it did. Rejects on any other failure. */
export async function createPrivateFileSoon(path: string, text: string): Promise<boolean> {
  return (await run({ op: 'create', path, text })) as boolean;
}

async function run(job: FileJob): Promise<FileJobResult> {
  if (writes < OFF_THREAD_FROM || process.platform === 'win32') {
    writes += 1;
    return runFileJob(inPlace, job);
  }
  worker ??= import('./file-worker.js').then(
    (module) => module.startFileWorker(inPlace),
    () => undefined,
  );
  const thread = await worker;
  return thread ? thread.run(job) : runFileJob(inPlace, job);
}
