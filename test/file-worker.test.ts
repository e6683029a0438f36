// A long batch's file writes on the file worker's thread (src/state/file-worker.ts): the same writes as
// in place (file-ops.ts's one definition), each caller told its own outcome, failures as errors with their
// code, and what the thread could not finish done in place.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inPlace } from '../src/state/file-ops.js';
import { startFileWorker } from '../src/state/file-worker.js';
import { appendToLogSoon, createPrivateFileSoon, OFF_THREAD_FROM } from '../src/state/file-writes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rep-file-worker-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the file worker', () => {
  it('appends and creates as in place, 0600, each job answered in its place; one turn’s jobs together', async () => {
    const worker = startFileWorker(inPlace);
    const log = join(dir, 'a.jsonl');
    const [sizeA, sizeB, made, again] = await Promise.all([
      worker.run({ op: 'append', path: log, text: '{"id":"a"}\n' }),
      worker.run({ op: 'append', path: log, text: '{"id":"b"}\n' }),
      worker.run({ op: 'create', path: join(dir, 'e.answer'), text: 'entry' }),
      worker.run({ op: 'create', path: join(dir, 'e.answer'), text: 'other' }),
    ]);
    expect([sizeA, sizeB, made, again]).toEqual([11, 22, true, false]);
    expect(readFileSync(log, 'utf8')).toBe('{"id":"a"}\n{"id":"b"}\n');
    expect(readFileSync(join(dir, 'e.answer'), 'utf8')).toBe('entry');
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'e.answer')).mode & 0o777).toBe(0o600);
  });

  it('fails a job as in place, with its code: no folder, a link (never followed), a FIFO', async () => {
    const worker = startFileWorker(inPlace);
    writeFileSync(join(dir, 'target'), 'kept');
    symlinkSync(join(dir, 'target'), join(dir, 'link.jsonl'));
    const jobs = [
      worker.run({ op: 'append', path: join(dir, 'gone', 'a.jsonl'), text: 'x\n' }),
      worker.run({ op: 'append', path: join(dir, 'link.jsonl'), text: 'x\n' }),
      worker.run({ op: 'create', path: join(dir, 'gone', 'e.answer'), text: 'x' }),
    ];
    if (process.platform === 'linux') {
      execFileSync('mkfifo', [join(dir, 'fifo.jsonl')]);
      jobs.push(worker.run({ op: 'append', path: join(dir, 'fifo.jsonl'), text: 'x\n' }));
    }
    const codes = (await Promise.allSettled(jobs)).map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as NodeJS.ErrnoException).code : 'done'));
    // A FIFO without a reader: a write-only, non-blocking open fails at once (ENXIO), as in place.
    expect(codes).toEqual(['ENOENT', 'ELOOP', 'ENOENT', ...(process.platform === 'linux' ? ['ENXIO'] : [])]);
    expect((await Promise.allSettled(jobs))[0]).toMatchObject({ status: 'rejected', reason: expect.any(Error) });
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('kept');
  });
});

describe('file-writes: in place first, then on the thread', () => {
  it('makes every write, in order for a log, before and after the thread takes over', async () => {
    const log = join(dir, 'series.jsonl');
    const count = OFF_THREAD_FROM + 40;
    const outcomes = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        index % 2 === 0 ? appendToLogSoon(log, `{"id":"${index}"}\n`) : createPrivateFileSoon(join(dir, `${index}.answer`), `${index}`),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === true)).toHaveLength(count / 2);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(lines).toEqual(Array.from({ length: count / 2 }, (_, index) => `{"id":"${index * 2}"}`));
    expect(readFileSync(join(dir, `${count - 1}.answer`), 'utf8')).toBe(`${count - 1}`);
    await expect(createPrivateFileSoon(join(dir, `${count - 1}.answer`), 'again')).resolves.toBe(false);
    await expect(appendToLogSoon(join(dir, 'no', 'such.jsonl'), 'x\n')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
