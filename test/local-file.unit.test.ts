// Reading rep's own files (src/local-file.ts and its two readers): a missing file is no error, and a
// link that points nowhere is missing where links are followed (config) but never read where they are
// not (state files).
import { chmodSync, closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../src/config/file.js';
import { ensurePrivateDir, exactFstat, exactLstat, fileId, LocalFileError, readLocalFile } from '../src/local-file.js';
import { readPrivateFile } from '../src/state/files.js';

const dir = mkdtempSync(join(tmpdir(), 'rep-local-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = join(dir, 'file.json');
writeFileSync(file, '{"baseUrl":"https://x.example/api"}');
const dangling = join(dir, 'dangling.json');
symlinkSync(join(dir, 'nowhere.json'), dangling);
const linkToFile = join(dir, 'link.json');
symlinkSync(file, linkToFile);
const folder = join(dir, 'folder');
mkdirSync(folder);
const missing = join(dir, 'missing.json');

describe('readLocalFile', () => {
  it('reads a file, following a link unless told not to', () => {
    expect(readLocalFile(file, 1024)).toBe('{"baseUrl":"https://x.example/api"}');
    expect(readLocalFile(linkToFile, 1024)).toBe('{"baseUrl":"https://x.example/api"}');
    expect(() => readLocalFile(linkToFile, 1024, { noFollow: true })).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });

  it('is undefined for no file, and for a link to none where links are followed', () => {
    expect(readLocalFile(missing, 1024)).toBeUndefined();
    expect(readLocalFile(missing, 1024, { noFollow: true })).toBeUndefined();
    expect(readLocalFile(dangling, 1024)).toBeUndefined();
    // not followed: the link is there, and it is no regular file
    expect(() => readLocalFile(dangling, 1024, { noFollow: true })).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });

  it('is undefined under a folder that is not there, and ENOTDIR under a file, on every Node line', () => {
    expect(readLocalFile(join(dir, 'no-folder', 'deeper', 'config.json'), 1024)).toBeUndefined();
    expect(readLocalFile(join(dir, 'no-folder', 'config.json'), 1024, { noFollow: true })).toBeUndefined();
    // Node 22+ stat says "nothing" here as for a missing file
    expect(() => readLocalFile(join(file, 'config.json'), 1024)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(() => readLocalFile(join(file, 'deeper', 'config.json'), 1024, { noFollow: true })).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  it('refuses a directory and a file over the cap', () => {
    expect(() => readLocalFile(folder, 1024)).toThrow(LocalFileError);
    expect(() => readLocalFile(file, 8)).toThrow(expect.objectContaining({ code: 'EFBIG' }));
  });

  it('reads files of every size whole, up to the cap exactly', () => {
    const text = 'Кофейня Ромашка, '.repeat(12_000); // ~370 KB, characters across every read's edge
    const bytes = Buffer.byteLength(text);
    for (const [name, content] of [
      ['empty', ''],
      ['one', 'x'],
      ['big', text],
    ] as const) {
      writeFileSync(join(dir, name), content);
      expect(readLocalFile(join(dir, name), Math.max(Buffer.byteLength(content), 1))).toBe(content);
    }
    expect(() => readLocalFile(join(dir, 'big'), bytes - 1)).toThrow(expect.objectContaining({ code: 'EFBIG' }));
  });

  it.runIf(process.platform === 'linux')('reads a file whose size the system gives as 0 to its end (procfs)', () => {
    const status = readLocalFile('/proc/self/status', 1024 * 1024);
    expect(status).toMatch(/^Name:/);
    expect(status).toMatch(/\nPid:\s+\d+\n/);
    expect(status?.endsWith('\n')).toBe(true);
  });
});

describe('its readers', () => {
  it('a missing config file (or a link to none) is an empty config', () => {
    expect(readConfigFile(missing)).toEqual({});
    expect(readConfigFile(dangling)).toEqual({});
    expect(readConfigFile(file)).toEqual({ baseUrl: 'https://x.example/api' });
  });

  it("a state file that is missing is 'gone'; a link, even to nothing, is 'not-a-file'", () => {
    expect(readPrivateFile(missing, 1024)).toBe('gone');
    expect(readPrivateFile(dangling, 1024)).toBe('not-a-file');
    expect(readPrivateFile(linkToFile, 1024)).toBe('not-a-file');
    expect(readPrivateFile(file, 1024)).toEqual({ text: '{"baseUrl":"https://x.example/api"}' });
  });
});

describe('ensurePrivateDir', () => {
  it.runIf(process.platform !== 'win32')(
    'makes a folder 0700, tightens one of the user’s, and follows a link of theirs to a folder, its target left as it is',
    () => {
      const made = join(dir, 'made', 'deep');
      ensurePrivateDir(made);
      expect(statSync(made).mode & 0o777).toBe(0o700);
      const open = join(dir, 'open');
      mkdirSync(open, { mode: 0o755 });
      chmodSync(open, 0o755);
      ensurePrivateDir(open);
      expect(statSync(open).mode & 0o777).toBe(0o700);
      const target = join(dir, 'target');
      mkdirSync(target, { mode: 0o755 });
      chmodSync(target, 0o755);
      const link = join(dir, 'link-to-folder');
      symlinkSync(target, link);
      expect(() => ensurePrivateDir(link)).not.toThrow();
      expect(statSync(target).mode & 0o777).toBe(0o755);
    },
  );
});

describe('which file a stat is of', () => {
  it('names a file as a bigint stat does, with or without bigints; nothing there is undefined', () => {
    const bigint = fileId(lstatSync(file, { bigint: true }));
    expect(fileId(exactLstat(file)!)).toBe(bigint);
    const fd = openSync(file, 'r');
    try {
      expect(fileId(exactFstat(fd))).toBe(bigint);
    } finally {
      closeSync(fd);
    }
    expect(fileId(exactLstat(linkToFile)!)).toBe(fileId(lstatSync(linkToFile, { bigint: true })));
    expect(exactLstat(missing)).toBeUndefined();
  });
});
