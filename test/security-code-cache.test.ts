// bin/rep.cjs's code cache runs what an entry holds: V8 accepts an entry made from any source of the
// same length. So an entry is used only when it is a regular file of this user's that no one else can
// write, in a code/ folder no other user can swap (each folder above it is this user's or root's and
// not writable by others); its temp files are created exclusively. Spawned: the bin is the point, and
// a second user (uid 65534) owns what the attacker planted, which needs root.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempHome, REP_BIN, runCli, type TempHome } from './helpers/cli.js';

const BUNDLE = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const OTHER = 65534;
const isRoot = process.getuid?.() === 0;

let home: TempHome;
beforeEach(() => {
  home = makeTempHome();
});
afterEach(() => home.cleanup());

/** The name the bin gives the bundle's entry for `rep help` (bin/rep.cjs runCached). */
function entryName(): string {
  const stat = statSync(BUNDLE);
  return `cli.cjs-help-${process.versions.v8}-${stat.size}-${Math.trunc(stat.mtimeMs)}.bin`;
}

/**
 * A code cache entry that V8 accepts for the bundle but that runs other code: a script of the same
 * length that writes the file REP_TEST_MARKER names. Made by a child on this Node, as the bin would.
 */
function poisonedEntry(path: string): void {
  const make = `
    const { Script } = require('node:vm');
    const fs = require('node:fs');
    const head = '(function (exports, require, module, __filename, __dirname) {\\n';
    const real = head + fs.readFileSync(process.argv[1], 'latin1') + '\\n})';
    const evil = head + "require('node:fs').writeFileSync(process.env.REP_TEST_MARKER, 'ran');/*";
    const script = new Script(evil + ' '.repeat(real.length - evil.length - 5) + '*/\\n})', { filename: process.argv[1], lineOffset: -1 });
    script.runInThisContext()({}, require);
    fs.writeFileSync(process.argv[2], script.createCachedData(), { mode: 0o600 });
  `;
  const made = spawnSync(process.execPath, ['-e', make, BUNDLE, path], { env: { ...process.env, REP_TEST_MARKER: join(home.dir, 'maker-ran') } });
  expect(made.status).toBe(0);
}

/** The code/ folder of the home's cache dir, made 0700 (as the bin makes it), with a poisoned entry in it. */
function plantedCache(): { dir: string; entry: string } {
  const dir = join(home.dir, 'cache', 'rep', 'code');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry = join(dir, entryName());
  poisonedEntry(entry);
  return { dir, entry };
}

/** `rep help` through the bin; whether the planted code ran. */
async function runHelp(): Promise<{ code: number | null; stdout: string; ran: boolean }> {
  const marker = join(home.dir, 'marker');
  const run = await runCli(['help'], { home, env: { REP_TEST_MARKER: marker } });
  return { code: run.code, stdout: run.stdout, ran: existsSync(marker) };
}

describe.skipIf(!isRoot)("bin/rep.cjs's code cache trusts only this user's files", () => {
  it("runs an entry of its own (the test's poisoned entry is one V8 accepts)", async () => {
    plantedCache();
    expect((await runHelp()).ran).toBe(true);
  });

  it('does not use an entry another user owns (a code/ folder swapped under it)', async () => {
    const { entry } = plantedCache();
    chownSync(entry, OTHER, OTHER);
    const run = await runHelp();
    expect(run.ran).toBe(false);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: rep /);
  });

  it('does not use an entry others can write to', async () => {
    const { entry } = plantedCache();
    chmodSync(entry, 0o620);
    expect((await runHelp()).ran).toBe(false);
  });

  it('uses no code cache under a folder another user owns (sudo -E keeps HOME: root in a user’s ~/.cache)', async () => {
    const { entry } = plantedCache();
    chownSync(join(home.dir, 'cache'), OTHER, OTHER);
    const run = await runHelp();
    expect(run.ran).toBe(false);
    expect(run.code).toBe(0);
    expect(readFileSync(entry).length).toBeGreaterThan(0);
  });

  it('uses no code cache under a folder others can write to, however far up', async () => {
    plantedCache();
    chmodSync(home.dir, 0o777);
    expect((await runHelp()).ran).toBe(false);
  });

  it('creates its temp file exclusively: a planted link to a victim file is not followed', async () => {
    const dir = join(home.dir, 'cache', 'rep', 'code');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const victim = join(home.dir, 'victim');
    writeFileSync(victim, 'keep me');
    const temp = join(dir, `${entryName()}.$$.tmp`);
    // `exec` keeps the shell's pid: the link is planted under the name the bin's temp file will have.
    const script = `ln -s "$1" "${temp}" && exec "$2" "$3" help`;
    const run = await runCli(['-c', script, 'sh', victim, process.execPath, REP_BIN], { home, bin: '/bin/sh' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: rep /);
    expect(readFileSync(victim, 'utf8') === 'keep me').toBe(true);
  });
});
