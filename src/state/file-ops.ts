// The file writes rep makes by the thousand in a batch, defined once: an append to a log
// (append-log.ts's protocol) and the creation of a private file (an answer cache entry). They are one
// self-contained function of node:fs and fileId (no import, no outer name), so that its source text is
// also what the file worker's thread runs (file-worker.ts): the thread writes by this definition, not a copy.
import type * as nodeFs from 'node:fs';
import { fileId as FileId } from '../local-file.js';

/** A log kept open for many appends (the ledger's, a line a request). */
export interface LogWriter {
  /** Writes text at the end of the log (one write; again if a rewrite replaced the file meanwhile); the log's size after. Throws when it cannot. */
  append(text: Uint8Array | string): number;
  /** The file the path named at the last append's check (pathId's form) and its size then; undefined before one. */
  lastChecked(): { id: string; size: number } | undefined;
  /** Closes the file; append() after it opens it again. */
  close(): void;
}

export interface FileOps {
  /** A writer for the log at path: the file stays open between appends, its identity read once. */
  openLogWriter(path: string): LogWriter;
  /** Appends text at the end of the log (created 0600), again if a rewrite replaced the file meanwhile; the size after. Throws when it cannot. */
  appendToLog(path: string, text: Uint8Array | string): number;
  /**
   * Creates path with text when no file is there (one file made, no rename): false when something is
   * (EEXIST; a link included, never followed). A reader may meet the new file before its last byte: only
   * for files whose readers find a cut-off one by its checksum (the answer cache's entries). Throws on any other failure.
   */
  createPrivateFile(path: string, text: string): boolean;
}

/** One write: an append to a log, or the creation of a private file. */
export interface FileJob {
  op: 'append' | 'create';
  path: string;
  text: string;
}

/** What a job gave: appendToLog's size, createPrivateFile's whether it made the file. */
export type FileJobResult = number | boolean;

/** Runs a job with `ops` (self-contained too: the worker runs its text). */
export function runFileJob(ops: FileOps, job: FileJob): FileJobResult {
  return job.op === 'append' ? ops.appendToLog(job.path, job.text) : ops.createPrivateFile(job.path, job.text);
}

/** The operations on `fs`; nothing in this function may name anything outside it (the worker runs its text). */
export function fileOps(fs: typeof nodeFs, fileId: typeof FileId): FileOps {
  const { constants } = fs;
  /** Rewrites after a rewrite renamed the file under an appender; more means something else keeps renaming it. */
  const APPEND_ATTEMPTS = 8;
  // An append is one write() with O_APPEND (the kernel puts it whole at the end), never through a link
  // (O_NOFOLLOW) nor into a FIFO (O_NONBLOCK, then fstat), to a file made 0600.
  const openForAppend = (path: string): { fd: number; id: string } => {
    const fd = fs.openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    try {
      // One fstat tells the kind, the mode and which file this is (for the check after each write).
      const stat = fs.fstatSync(fd, { bigint: true });
      if (!stat.isFile()) throw Object.assign(new Error(`ENOTREG: not a regular file, open '${path}'`), { code: 'ENOTREG' });
      if ((stat.mode & 0o077n) !== 0n) fs.fchmodSync(fd, 0o600); // a file restored by a CI cache may come back 0644
      return { fd, id: fileId(stat) };
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  };
  const openLogWriter = (path: string): LogWriter => {
    let open: { fd: number; id: string } | undefined;
    let checked: { id: string; size: number } | undefined;
    const close = () => {
      const fd = open?.fd;
      open = undefined;
      if (fd !== undefined) fs.closeSync(fd);
    };
    return {
      append(text) {
        const bytes = typeof text === 'string' ? Buffer.from(text) : text;
        for (let attempt = 1; ; attempt++) {
          try {
            open ??= openForAppend(path);
            const written = fs.writeSync(open.fd, bytes);
            if (written !== bytes.length) throw new Error(`only ${written} of ${bytes.length} bytes could be written to ${path}`);
          } catch (error) {
            close();
            throw error;
          }
          // After writing, the path is checked to still name the file written to (one lstat, which also
          // gives the size): if a rewrite renamed another into place meanwhile, the text is written again there.
          const now = fs.lstatSync(path, { bigint: true, throwIfNoEntry: false });
          checked = now && { id: fileId(now), size: Number(now.size) };
          if (checked?.id === open.id || attempt >= APPEND_ATTEMPTS) return checked?.size ?? 0;
          close(); // written to a file no longer there: again, into the one that is
        }
      },
      lastChecked: () => checked,
      close,
    };
  };
  return {
    openLogWriter,
    appendToLog(path, text) {
      const writer = openLogWriter(path);
      try {
        return writer.append(text);
      } finally {
        writer.close();
      }
    },
    createPrivateFile(path, text) {
      try {
        fs.writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
    },
  };
}

/** The writes on this thread. */
export const inPlace = fileOps(process.getBuiltinModule('node:fs'), FileId);
