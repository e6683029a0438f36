// The file worker: a thread that makes a long batch's file writes (a series file a new name, an answer
// entry an answer), so that the event loop sends and reads the next requests while the kernel creates
// files (its slowest calls in a batch). The writes asked within a few milliseconds go as one message and
// come back as one; each caller gets its own outcome. The thread runs file-ops.ts's own function
// (its source text): it writes by the same definition as the event loop. A leaf: only file-writes.ts
// loads it, once a run has made enough such writes.
import { fileId } from '../local-file.js';
import { fileOps, runFileJob, type FileJob, type FileJobResult, type FileOps } from './file-ops.js';

export interface FileWorker {
  /** Runs the job on the thread; rejects with the write's own error (its `code` kept). A job the thread could not finish runs in place. */
  run(job: FileJob): Promise<FileJobResult>;
}

interface Waiting {
  job: FileJob;
  resolve: (result: FileJobResult) => void;
  reject: (error: Error) => void;
}

/**
 * How long the first job of a message waits for others, and how many go at most. Fewer, larger messages
 * cost the event loop less (each answer settles its jobs, and the batch writes their records, at once);
 * the wait is no request's (a batch's request slots free as answers arrive), and the jobs are a few
 * dozen names' at most, well within a batch's window of names read ahead.
 */
const FLUSH_MS = 4;
const FLUSH_JOBS = 64;

type Outcome = { value: FileJobResult } | { error: { message: string; code?: string } };

/** The thread's program: file-ops.ts's functions, from their source text. */
function workerSource(): string {
  return `'use strict';
const { parentPort } = require('node:worker_threads');
const ops = (${fileOps.toString()})(require('node:fs'), ${fileId.toString()});
const runFileJob = ${runFileJob.toString()};
parentPort.on('message', (jobs) => {
  parentPort.postMessage(jobs.map((job) => {
    try {
      return { value: runFileJob(ops, job) };
    } catch (error) {
      return { error: { message: String(error && error.message), code: error && typeof error.code === 'string' ? error.code : undefined } };
    }
  }));
});
`;
}

/**
 * Starts the thread. It keeps the process alive only while it has jobs. Should it fail (it could not
 * start, or stopped), the jobs it had not answered run in place, and so do all later ones: an append
 * done twice is read once (each line has its id), a file made twice is found there (EEXIST).
 */
export function startFileWorker(ops: FileOps): FileWorker {
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  let thread: InstanceType<typeof Worker> | undefined;
  /** Jobs not sent yet: sent together FLUSH_MS after the first, or at once when there are FLUSH_JOBS. */
  let queue: Waiting[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Messages sent and not answered, oldest first (the thread answers them in order). */
  const sent: Waiting[][] = [];
  const settleInPlace = (waiting: Waiting) => {
    try {
      waiting.resolve(runFileJob(ops, waiting.job));
    } catch (error) {
      waiting.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const fail = () => {
    if (!thread) return;
    const gone = thread;
    thread = undefined;
    gone.removeAllListeners();
    gone.on('error', () => undefined);
    void gone.terminate();
    for (const batch of sent.splice(0)) for (const waiting of batch) settleInPlace(waiting);
  };
  try {
    // Its own stdout and stderr (never the process's: stdout is the batch's records); a small heap,
    // since it holds a turn's texts at a time (a thread that runs out of it stops: its jobs run in place).
    const resourceLimits = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 };
    thread = new Worker(workerSource(), { eval: true, stdout: true, stderr: true, resourceLimits });
    thread.unref();
    thread.on('message', (outcomes: Outcome[]) => {
      const batch = sent.shift() ?? [];
      if (sent.length === 0) thread?.unref();
      for (const [index, waiting] of batch.entries()) {
        const outcome = outcomes[index];
        if (outcome && 'value' in outcome) waiting.resolve(outcome.value);
        else if (outcome) waiting.reject(Object.assign(new Error(outcome.error.message), outcome.error.code ? { code: outcome.error.code } : {}));
        else settleInPlace(waiting);
      }
    });
    thread.on('error', fail);
    thread.on('exit', fail);
  } catch {
    thread = undefined;
  }
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = queue;
    queue = [];
    if (!thread) return batch.forEach(settleInPlace);
    sent.push(batch);
    thread.ref();
    thread.postMessage(batch.map((waiting) => waiting.job));
  };
  return {
    run(job) {
      return new Promise((resolve, reject) => {
        const queued = queue.push({ job, resolve, reject });
        if (queued >= FLUSH_JOBS) flush();
        else if (queued === 1) timer = setTimeout(flush, FLUSH_MS);
      });
    },
  };
}
