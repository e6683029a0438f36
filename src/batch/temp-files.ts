// A batch's temporary files: the names its quota plan read ahead (name-spill.ts) and the answers its
// duplicate names reuse (dedupe.ts), each in a private folder of its own in TMPDIR. A TMPDIR that is
// full, too small or not there fails neither: each keeps in memory what its file cannot hold, and the
// run says so once (the same text from both is one line: deps.warn says a text once).
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemErrorText } from '../errors.js';

/** A temporary file open for writing and reading: `written` bytes of it are whole. */
export interface TempFile {
  dir: string;
  fd: number;
  written: number;
}

/** Makes a private folder (0700) in TMPDIR named after `prefix`, and `name` in it (0600, created exclusively). Throws when it cannot. */
export function makeTempFile(prefix: string, name: string): TempFile {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return { dir, fd: openSync(join(dir, name), 'wx+', 0o600), written: 0 };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Appends `bytes` whole, or throws (a full disk, a file-size limit). `written` moves only past a
 * whole append, so a reader never takes the part of one that failed.
 */
export function appendTemp(file: TempFile, bytes: Buffer): void {
  // A write can take part of the bytes at a limit; the next one then says why the rest cannot go.
  for (let done = 0; done < bytes.length; ) done += writeSync(file.fd, bytes, done, bytes.length - done, file.written + done);
  file.written += bytes.length;
}

/** Closes the file (once: a number closed twice could close another file that reused it) and removes its folder. */
export function removeTemp(file: TempFile): void {
  if (file.fd >= 0) closeSync(file.fd);
  file.fd = -1;
  rmSync(file.dir, { recursive: true, force: true });
}

/** The warning for a temporary file that could not be made or written. */
export function tempFilesWarning(error: unknown): string {
  return `cannot write the batch's temporary files in ${tmpdir()} (${systemErrorText(error)}); the batch keeps them in memory`;
}
