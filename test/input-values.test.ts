// Values users give rep, read as they were meant or refused: never silently read as something else.
// Each case was once misread (a number from an empty or hex value, a base URL joined across a line
// break, a names file in another encoding or with no line breaks at all); driven through main().
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempHome, runInProcess } from './helpers/cli.js';

/** Exit code and the first line of stderr. */
async function refusal(args: string[], env: Record<string, string> = {}) {
  const home = makeTempHome();
  const result = await runInProcess(args, { home, env });
  return [result.code, result.stderr.split('\n')[0], result.stdout];
}

describe('whole numbers and thresholds are plain decimals', () => {
  it('an empty --retries is refused, not read as 0 retries', async () => {
    expect(await refusal(['--sandbox', '--retries', '', 'pulse'])).toEqual([2, "rep: invalid value '' for --retries: expected a whole number (0 or more)", '']);
    expect(await refusal(['--sandbox', '--retries', ' ', 'pulse'])).toEqual([
      2,
      "rep: invalid value ' ' for --retries: expected a whole number (0 or more)",
      '',
    ]);
  });

  it('hex, binary and exponent forms are refused, not read as another number', async () => {
    expect(await refusal(['--sandbox', '--retries', '0x3', 'pulse'])).toEqual([
      2,
      "rep: invalid value '0x3' for --retries: expected a whole number (0 or more)",
      '',
    ]);
    expect(await refusal(['--sandbox', 'audit', 'a', 'b', '--concurrency', '1e1'])).toEqual([
      2,
      "rep: invalid value '1e1' for --concurrency: expected a whole number (1 or more)",
      '',
    ]);
    expect(await refusal(['--sandbox', 'audit', 'Royal Bear Coffee', '--fail-under', '0x3C'])).toEqual([
      2,
      "rep: invalid value '0x3C' for --fail-under: expected a number such as 60 or 4.5 (0 or more)",
      '',
    ]);
    expect(await refusal(['--sandbox', 'audit', 'Royal Bear Coffee', '--fail-on-drop', '0b101'])).toEqual([
      2,
      "rep: invalid value '0b101' for --fail-on-drop: expected a number such as 60 or 4.5 (0 or more)",
      '',
    ]);
  });

  it('plain decimals still pass', async () => {
    const home = makeTempHome();
    const result = await runInProcess(['--sandbox', '--retries', ' 1 ', 'audit', 'Royal Bear Coffee', '--fail-under', '10.5', '--concurrency', '2'], { home });
    expect([result.code, result.stderr]).toEqual([0, '']);
  });
});

describe('a base URL or an api path with a tab or line break is refused', () => {
  it('is not joined across the break (the URL parser drops tabs and line breaks)', async () => {
    const home = makeTempHome();
    // Two lines of a file read with "$(cat …)": once stored as http://127.0.0.1:9/apiv2.
    const login = await runInProcess(['login', '--no-verify', '--base-url', 'http://127.0.0.1:9/api\nv2'], { home, input: 'rep_key_1234\n' });
    expect([login.code, login.stderr]).toEqual([
      2,
      'rep: invalid base URL from --base-url: "http://127.0.0.1:9/api\\nv2"\nhint: give a full URL such as https://example.com/api\n',
    ]);
    const status = await runInProcess(['status', '--json'], { home, env: { REP_BASE_URL: 'https://exa\tmple.com/api', REP_API_KEY: 'rep_key_1234' } });
    expect([status.code, status.stderr.split('\n')[0]]).toEqual([2, 'rep: invalid base URL from REP_BASE_URL: "https://exa\\tmple.com/api"']);
  });

  it('rep api refuses such a path rather than sending another', async () => {
    expect(await refusal(['--sandbox', 'api', 'pul\nse'])).toEqual([2, 'rep: the path "pul\\nse" is not a path below the base URL', '']);
  });
});

describe('a names file is UTF-8 text, one name a line', () => {
  const notText = 'hint: give a text file with one company name a line\n';

  it('a file in a legacy code page is refused, not audited as U+FFFD names', async () => {
    const home = makeTempHome();
    const file = join(home.dir, 'names.txt');
    writeFileSync(file, Buffer.from([0xca, 0xee, 0xf4, 0xe5, 0xe9, 0xed, 0xff, 0x0a])); // Кофейня in WINDOWS-1251
    const result = await runInProcess(['--sandbox', 'audit', '--file', file, '--format', 'ndjson'], { home });
    expect([result.code, result.stdout, result.stderr]).toEqual([
      2,
      '',
      `rep: cannot read ${file}: it is not UTF-8 text\nhint: save it as UTF-8, e.g. iconv -f WINDOWS-1251 -t UTF-8, one company name a line\n`,
    ]);
  });

  it('binary data and a line longer than any name are refused (once a crash for /dev/zero)', async () => {
    const home = makeTempHome();
    const zeros = join(home.dir, 'zeros');
    writeFileSync(zeros, Buffer.alloc(100_000));
    const binary = await runInProcess(['--sandbox', 'audit', '--file', zeros, '--format', 'ndjson'], { home });
    expect([binary.code, binary.stdout, binary.stderr]).toEqual([
      2,
      '',
      `rep: cannot read ${zeros}: line 1 holds a NUL byte: it is binary data, not names\n${notText}`,
    ]);
    const long = await runInProcess(['--sandbox', 'audit', '-', '--format', 'ndjson'], { home, input: `Royal Bear Coffee\r\n${'a'.repeat(4097)}\n` });
    expect([long.code, long.stdout, long.stderr]).toEqual([2, '', `rep: cannot read stdin: line 2 is longer than 4096 bytes\n${notText}`]);
  });

  it('a byte-order mark, CRLF, blank lines, comments and a name of 4096 bytes still read', async () => {
    const home = makeTempHome();
    const file = join(home.dir, 'names.txt');
    writeFileSync(file, `\uFEFF# shops\r\n\r\n  Royal Bear Coffee \r\n${'я'.repeat(2048)}\r\n`);
    const result = await runInProcess(['--sandbox', 'audit', '--file', file, '--format', 'ndjson'], { home });
    const queries = result.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { query: string }).query);
    expect(queries).toEqual(['Royal Bear Coffee', 'я'.repeat(2048)]);
  });
});

describe('a store URL with a tab or line break is refused', () => {
  it('is not joined across the break into another database', async () => {
    // Once read as the database repstaging: exit 8, "cannot reach the store at rep@127.0.0.1:9/repstaging".
    const hint = 'hint: give one URL, such as postgres://user@host/db\n';
    const home = makeTempHome();
    const flag = await runInProcess(['--store', 'postgres://rep@127.0.0.1:9/rep\nstaging', 'history', 'foo'], { home });
    expect([flag.code, flag.stdout, flag.stderr]).toEqual([2, '', `rep: --store holds a tab or line break: it is no URL\n${hint}`]);
    const env = await runInProcess(['history', 'foo'], { home, env: { REP_STORE: 'postgres://rep@127.0.0.1:9/rep\tstaging' } });
    expect([env.code, env.stdout, env.stderr]).toEqual([2, '', `rep: REP_STORE holds a tab or line break: it is no URL\n${hint}`]);
  });
});

describe('a company name argument holding a line break is refused', () => {
  const hint = 'hint: one name a line: rep audit --file names.txt, or each name as its own argument\n';

  it('is not audited as one name (once exit 3, "no company named …", a request spent)', async () => {
    const home = makeTempHome();
    const one = await runInProcess(['--sandbox', 'audit', 'Royal Bear Coffee\nAcme'], { home });
    expect([one.code, one.stdout, one.stderr]).toEqual([2, '', `rep: the company name "Royal Bear Coffee\\nAcme" holds a line break\n${hint}`]);
    const batch = await runInProcess(['--sandbox', 'audit', 'Acme', 'Royal Bear Coffee\r\nAcme', '--format', 'ndjson'], { home });
    expect([batch.code, batch.stdout, batch.stderr]).toEqual([2, '', `rep: the company name "Royal Bear Coffee\\r\\nAcme" holds a line break\n${hint}`]);
  });
});

describe('rep sandbox --host', () => {
  it('an empty or padded host is refused, not read as every interface', async () => {
    // '' once listened on every address and printed base_url=http://:PORT/api; ' 127.0.0.1' exited 1 (ENOTFOUND).
    for (const host of ['', ' ', ' 127.0.0.1', 'local host']) {
      expect(await refusal(['sandbox', '--host', host])).toEqual([
        2,
        `rep: invalid value '${host}' for --host: expected a host name or address, such as 127.0.0.1 or localhost`,
        '',
      ]);
    }
  });
});
