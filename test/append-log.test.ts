// The one log many processes append to and one at a time rewrites (src/state/append-log.ts): appends
// private and never through a link, a log opened to read only when it is a file of the user's own, a
// rewrite that keeps what was appended meanwhile, and a rewrite killed (kill -9) between its link and
// its rename, or between its rename and its tail copy, losing nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  appendToLog,
  openLogForReading,
  openLogWriter,
  readAsides,
  readLog,
  linesMissing,
  recoverRewrites,
  rewriteLog,
  type RewriteOptions,
} from '../src/state/append-log.js';
import { type BundledWorker, bundleWorker } from './helpers/bundle.js';

const MAX = 1024 * 1024;
let dir: string;
let log: string;
let aside: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rep-append-log-'));
  log = join(dir, 'a1.jsonl');
  aside = join(dir, 'pruning');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (id: string, keep = true) => `${JSON.stringify({ id, keep })}\n`;
const ids = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((row) => (JSON.parse(row) as { id: string }).id);
/** Keeps the lines marked keep; recovery appends the aside's lines the log lacks. */
const options = (extra: Partial<RewriteOptions> = {}): RewriteOptions => ({
  asideDir: aside,
  tag: '7',
  maxBytes: MAX,
  rewrite: (text) =>
    text
      .split('\n')
      .filter((row) => row.includes('"keep":true'))
      .map((row) => `${row}\n`)
      .join(''),
  recover: linesMissing,
  ...extra,
});

describe('append', () => {
  it('adds text whole at the end of a 0600 file, narrows a wider one, and says the size', () => {
    expect(appendToLog(log, Buffer.from(line('a')))).toBe(line('a').length);
    appendToLog(log, Buffer.from(line('b') + line('c')));
    expect(ids(readLog(log, MAX))).toEqual(['a', 'b', 'c']);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, 'wide.jsonl'), '', { mode: 0o644 });
    appendToLog(join(dir, 'wide.jsonl'), Buffer.from(line('d')));
    expect(statSync(join(dir, 'wide.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('never through a link, never into a FIFO (no hang), and reads neither', () => {
    const target = join(dir, 'target');
    writeFileSync(target, 'untouched', { mode: 0o600 });
    symlinkSync(target, log);
    expect(() => appendToLog(log, Buffer.from(line('a')))).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(() => readLog(log, MAX)).toThrow();
    expect(() => openLogForReading(log)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    const fifo = join(dir, 'fifo.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => appendToLog(fifo, Buffer.from(line('a')))).toThrow(/ENXIO|ENOTREG/); // no reader: ENXIO; one reading: ENOTREG
    expect(() => readLog(fifo, MAX)).toThrow(/not a regular file/);
    expect(() => openLogForReading(fifo)).toThrow(/fifo\.jsonl is not a regular file$/);
  });

  it('opened to read: which file at what size, none when there is none, never one others can write', () => {
    expect(openLogForReading(log)).toBeUndefined();
    appendToLog(log, Buffer.from(line('a')));
    const open = openLogForReading(log)!;
    try {
      expect(open).toMatchObject({ id: `${statSync(log, { bigint: true }).dev}:${statSync(log, { bigint: true }).ino}`, size: line('a').length });
    } finally {
      closeSync(open.fd);
    }
    chmodSync(log, 0o620);
    expect(() => openLogForReading(log)).toThrow(
      expect.objectContaining({ code: 'EFOREIGN', message: expect.stringMatching(/is writable by other users \(mode 620\)$/) }),
    );
  });

  it('a writer kept open follows a rewrite: its next line goes to the file now at the path', () => {
    const writer = openLogWriter(log);
    writer.append(Buffer.from(line('a')));
    writer.append(Buffer.from(line('b', false)));
    expect(rewriteLog(log, options())).toBe('rewritten');
    writer.append(Buffer.from(line('c')));
    writer.close();
    expect(ids(readLog(log, MAX))).toEqual(['a', 'c']);
    rmSync(log);
    openLogWriter(log).append(Buffer.from(line('d'))); // a log removed under it is made again
    expect(ids(readLog(log, MAX))).toEqual(['d']);
  });
});

describe('rewrite', () => {
  it('keeps what rewrite() keeps and every line appended after the read; leaves no aside, lock or temp file', () => {
    appendToLog(log, Buffer.from(line('a') + line('old', false) + line('b')));
    const outcome = rewriteLog(
      log,
      options({
        rewrite(text) {
          appendToLog(log, Buffer.from(line('late', false))); // another process's append, after the read
          return options().rewrite(text);
        },
      }),
    );
    expect(outcome).toBe('rewritten');
    expect(ids(readLog(log, MAX))).toEqual(['a', 'b', 'late']);
    expect(existsSync(aside)).toBe(false); // the aside folder goes once empty
    expect(readdirSync(dir)).toEqual(['a1.jsonl']);
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  it('unchanged when rewrite() keeps all, missing when there is no log', () => {
    appendToLog(log, Buffer.from(line('a')));
    expect(rewriteLog(log, options({ rewrite: () => undefined }))).toBe('unchanged');
    expect(rewriteLog(join(dir, 'none.jsonl'), options())).toBe('missing');
  });

  it('one rewrite at a time: a live process’s lock makes it busy, a dead one’s is cleared', () => {
    appendToLog(log, Buffer.from(line('a') + line('x', false)));
    mkdirSync(aside, { mode: 0o700 });
    writeFileSync(join(aside, 'a1.lock'), `${process.ppid}\n`);
    expect(rewriteLog(log, options())).toBe('busy');
    expect(ids(readLog(log, MAX))).toEqual(['a', 'x']);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(join(aside, 'a1.lock'), `${dead}\n`);
    expect(rewriteLog(log, options())).toBe('rewritten');
    expect(ids(readLog(log, MAX))).toEqual(['a']);
    expect(existsSync(aside)).toBe(false); // the aside folder goes once empty
  });
});

describe.runIf(process.platform === 'linux')('a rewrite killed (kill -9)', () => {
  let worker: string;
  let bundled: BundledWorker;
  beforeAll(async () => {
    // Rewrites the log keeping the lines marked keep; an append lands after its read; it kills itself at the step named.
    bundled = await bundleWorker(
      'state/append-log.ts',
      (url) => `const { appendToLog, rewriteLog } = await import(${JSON.stringify(url)});
const [log, asideDir, killAt] = process.argv.slice(2);
rewriteLog(log, {
  asideDir, tag: '7', maxBytes: 1 << 20,
  rewrite(text) {
    appendToLog(log, Buffer.from(JSON.stringify({ id: 'tail', keep: true }) + '\\n'));
    return text.split('\\n').filter((row) => row.includes('"keep":true')).map((row) => row + '\\n').join('');
  },
  recover: () => '',
  step(at) { if (at === killAt) process.kill(process.pid, 'SIGKILL'); },
});
`,
    );
    worker = bundled.worker;
  });
  afterAll(() => bundled.remove());

  const killedAt = (step: 'linked' | 'renamed') => {
    appendToLog(log, Buffer.from(line('a') + line('old', false) + line('b')));
    const result = spawnSync(process.execPath, [worker, log, aside, step]);
    expect(result.signal).toBe('SIGKILL');
    appendToLog(log, Buffer.from(line('after'))); // appends go on meanwhile
  };

  it('between link and rename: the log is whole; recovery removes the aside and the dead lock, adding nothing twice', () => {
    killedAt('linked');
    expect(ids(readLog(log, MAX))).toEqual(['a', 'old', 'b', 'tail', 'after']);
    expect(readdirSync(aside).sort()).toEqual([expect.stringMatching(/^a1\.7\.[0-9a-f]{8}\.jsonl$/), 'a1.lock']);
    recoverRewrites(aside, (stem) => (stem === 'a1' ? log : undefined), options());
    expect(ids(readLog(log, MAX))).toEqual(['a', 'old', 'b', 'tail', 'after']);
    expect(existsSync(aside)).toBe(false); // the aside folder goes once empty
    expect(rewriteLog(log, options())).toBe('rewritten');
    expect(ids(readLog(log, MAX))).toEqual(['a', 'b', 'tail', 'after']);
  });

  it('between rename and tail copy: the tail is read from the aside, and the next rewrite merges it back first', () => {
    killedAt('renamed');
    expect(ids(readLog(log, MAX))).toEqual(['a', 'b', 'after']); // the tail is only in the old file, aside
    expect(readAsides(aside, log, MAX).flatMap(ids)).toEqual(['a', 'old', 'b', 'tail']);
    expect(rewriteLog(log, options())).toBe('rewritten');
    expect(ids(readLog(log, MAX)).sort()).toEqual(['a', 'after', 'b', 'tail']);
    expect(existsSync(aside)).toBe(false); // the aside folder goes once empty
    expect(existsSync(log)).toBe(true);
  });

  it('between rename and tail copy: recoverRewrites alone merges it back', () => {
    killedAt('renamed');
    const failures: string[] = [];
    recoverRewrites(aside, (stem, extension) => (stem === 'a1' && extension === '.jsonl' ? log : undefined), {
      ...options(),
      onFailure: (path) => failures.push(path),
    });
    expect(failures).toEqual([]);
    expect(ids(readLog(log, MAX)).sort()).toEqual(['a', 'after', 'b', 'old', 'tail']); // recover() chose to take the old line back too
    expect(existsSync(aside)).toBe(false); // the aside folder goes once empty
  });
});

describe('recoverRewrites', () => {
  it('leaves an aside whose log it does not know, and one whose rewrite is alive', () => {
    mkdirSync(aside, { mode: 0o700 });
    writeFileSync(join(aside, 'zz.7.abcd.jsonl'), line('z'), { mode: 0o600 });
    writeFileSync(join(aside, 'a1.7.abcd.jsonl'), line('q'), { mode: 0o600 });
    writeFileSync(join(aside, 'a1.lock'), `${process.ppid}\n`);
    recoverRewrites(aside, (stem) => (stem === 'a1' ? log : undefined), options());
    expect(readdirSync(aside).sort()).toEqual(['a1.7.abcd.jsonl', 'a1.lock', 'zz.7.abcd.jsonl']);
    expect(existsSync(log)).toBe(false);
    execFileSync('rm', [join(aside, 'a1.lock')]);
    recoverRewrites(aside, (stem) => (stem === 'a1' ? log : undefined), options());
    expect(ids(readLog(log, MAX))).toEqual(['q']);
    expect(readdirSync(aside)).toEqual(['zz.7.abcd.jsonl']);
  });

  it('gives lines back after a line end when the log ends in a line a killed writer left unfinished', () => {
    mkdirSync(aside, { mode: 0o700 });
    writeFileSync(log, `${line('a')}{"id":"tor`, { mode: 0o600 });
    writeFileSync(join(aside, 'a1.7.abcd.jsonl'), line('q'), { mode: 0o600 });
    recoverRewrites(aside, (stem) => (stem === 'a1' ? log : undefined), options());
    expect(readLog(log, MAX).split('\n')).toEqual([line('a').trimEnd(), '{"id":"tor', line('q').trimEnd(), '']);
  });
});
