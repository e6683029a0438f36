// rep's local files are only ever regular files: a config or state file that is a FIFO, a device or a
// directory is reported by path (config: exit 1; state: a warning, read as empty) instead of hanging
// the process. Spawned, because a hang in a blocking open() is the very thing under test.
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep, type CliResult } from './helpers/cli.js';
import { startRecordingServer } from './helpers/servers.js';

const KEY = 'files-test-key-0123456789';
const { home, rep, spawn, track } = useRep();

function configFile(): string {
  mkdirSync(home().configDir, { recursive: true, mode: 0o700 });
  return join(home().configDir, 'config.json');
}

/** A file among the request count's record files (state/rep/requests/NAME.jsonl). */
function stateFile(name = 'planted'): string {
  const dir = join(home().env.XDG_STATE_HOME as string, 'rep', 'requests');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${name}.jsonl`);
}

/** A run that must end by itself: a hang is killed by the safety net and fails here. */
async function ended(result: Promise<CliResult>): Promise<CliResult> {
  const done = await result;
  expect(done.signal).toBeNull();
  return done;
}

describe.runIf(process.platform === 'linux')('special files', () => {
  // Spawned where a hang is possible: a blocking open of a FIFO would stall the test process itself.
  it('a config file that is a FIFO: exit 1 naming it, no hang', async () => {
    const path = configFile();
    execFileSync('mkfifo', ['-m', '600', path]);
    const result = await ended(spawn(['status'], { env: { REP_API_KEY: KEY }, killAfterMs: 15_000 }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^rep: the config file ${path} is a FIFO \\(named pipe\\), not a regular file\\nhint: `, 'm'));
    expect(statSync(path).isFIFO()).toBe(true);
  });

  it('a config file linked to /dev/zero: exit 1 naming it, no endless read', async () => {
    symlinkSync('/dev/zero', configFile());
    const result = await ended(spawn(['pulse'], { env: { REP_API_KEY: KEY, REP_BASE_URL: 'https://api.example.com/api' }, killAfterMs: 15_000 }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rep: the config file .*config\.json is a device, not a regular file/m);
  });

  it('login refuses to replace a FIFO config file, and reads no key', async () => {
    const path = configFile();
    execFileSync('mkfifo', ['-m', '600', path]);
    const result = await ended(spawn(['login', '--no-verify', '--base-url', 'https://api.example.com/api'], { input: `${KEY}\n`, killAfterMs: 15_000 }));
    expect(result.code).toBe(1);
    expect(statSync(path).isFIFO()).toBe(true);
  });

  it('a config file linked to a regular file is read as usual', async () => {
    const target = join(home().dir, 'real-config.json');
    writeFileSync(target, JSON.stringify({ apiKey: KEY, baseUrl: 'https://api.example.com/api' }), { mode: 0o600 });
    symlinkSync(target, configFile());
    const result = await rep(['--json', 'status']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ key_source: 'config', base_url: 'https://api.example.com/api' });
  });

  it('a request-count record file that is a FIFO: skipped, counted without it, no hang', async () => {
    const server = track(await startRecordingServer());
    const path = stateFile();
    execFileSync('mkfifo', ['-m', '600', path]);
    const env = { REP_API_KEY: KEY, REP_BASE_URL: server.baseUrl.href };
    const pulse = await ended(spawn(['pulse'], { env, killAfterMs: 15_000 }));
    expect(pulse.code).toBe(0);
    expect(JSON.parse(pulse.stdout)).toEqual({ index: 50 });
    const status = await ended(spawn(['--json', 'status'], { env, killAfterMs: 15_000 }));
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ requests_last_hour: 1 });
  });

  it('a request-count record file that is a directory: skipped, and the command still works', async () => {
    const server = track(await startRecordingServer());
    mkdirSync(stateFile());
    const env = { REP_API_KEY: KEY, REP_BASE_URL: server.baseUrl.href };
    const result = await ended(spawn(['pulse'], { env, killAfterMs: 15_000 }));
    expect(result.code).toBe(0);
    const status = await ended(spawn(['--json', 'status'], { env, killAfterMs: 15_000 }));
    expect(JSON.parse(status.stdout)).toMatchObject({ requests_last_hour: 1 });
  });
});
