// End to end: every command against the sandbox over real HTTP, and every exit code of the contract
// that the sandbox can produce; in-process through main(), but for `rep sandbox` stopped by Ctrl-C and
// the entry's own paths (no arguments, --version), which run the built CLI.
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pulseIndex, sandboxData, sandboxDataOn } from '../src/sandbox/data.js';
import { startSandbox } from '../src/sandbox/server.js';
import { runCli, useRep } from './helpers/cli.js';
import { closedPort } from './helpers/fault-server.js';
import { useSandbox } from './helpers/sandbox.js';

const sandbox = useSandbox();
const session = useRep({ env: () => ({ REP_BASE_URL: sandbox.url, REP_API_KEY: sandbox.key }) });

/** `rep --retries 0 …args` in this test's home, against the shared sandbox unless env says otherwise. */
function rep(args: string[], env: Record<string, string | undefined> = {}) {
  return session.rep(args, { env });
}

describe('audit', () => {
  it('prints the server body as JSON when piped, exit 0', async () => {
    const result = await rep(['audit', 'Кофейня Ромашка']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.company.name).toBe('Кофейня Ромашка');
    expect(typeof body.score).toBe('number');
    expect(result.stderr).toBe('');
  });

  it('shows a table with the score and one row per source', async () => {
    const result = await rep(['--format', 'table', 'audit', 'Кофейня Ромашка']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Reputation Score\s+\d+(\.\d)?/);
    const body = JSON.parse((await rep(['audit', 'Кофейня Ромашка'])).stdout);
    for (const source of body.sources) expect(result.stdout).toContain(source.source);
  });

  it('shows a table by default when stdout is a terminal, in colour unless NO_COLOR', async () => {
    const io = { stdoutIsTTY: true, stderrIsTTY: false, columns: 100 };
    const coloured = await session.rep(['audit', 'Кофейня Ромашка'], { io });
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toContain('\u001b[1mКофейня Ромашка\u001b[22m');
    const plain = await session.rep(['audit', 'Кофейня Ромашка'], { io, env: { NO_COLOR: '1' } });
    expect(plain.stdout).toMatch(/^Кофейня Ромашка\nReputation Score\s+\d+(\.\d)? \/ 100\n/);
  });

  const NAMES = ['AT&T #5', '100% Natural', 'a/b?c=d Studio', 'Smile 😀 Dental', 'Ёлка', 'Кофейня Ромашка'];
  it.each(NAMES)('round-trips %j through the query string', async (name) => {
    const result = await rep(['audit', name]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).company.name).toBe(name);
  });

  it('an unknown company exits 3 with a hint', async () => {
    const result = await rep(['audit', 'No Such Company Anywhere']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'rep: no company named "No Such Company Anywhere"\nhint: no company has exactly that name; search by one word: rep search Anywhere\n',
    );
  });

  it('an empty or blank name is a usage error, exit 2, sent nowhere', async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}/api`; // a request would end in exit 6
    for (const name of ['', '   ']) {
      const result = await rep(['audit', name], { REP_BASE_URL: nowhere });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^rep: the company name is empty\nhint: /);
      expect(result.stdout).toBe('');
    }
  });

  it('accepts global options after the command', async () => {
    const result = await rep(['audit', 'Кофейня Ромашка', '--format', 'csv']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^company,score,source,rating,reviews/);
  });
});

describe('search', () => {
  it('joins words with one space and returns at most 5 of each type', async () => {
    const result = await rep(['search', 'Blue', 'Bottle', 'Coffee']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.query).toBe('Blue Bottle Coffee');
    expect(body.companies[0].name).toBe('Blue Bottle Coffee');
    for (const type of ['companies', 'cities', 'categories']) expect(body[type].length).toBeLessThanOrEqual(5);
  });

  it('no matches is a success', async () => {
    const result = await rep(['search', 'zzzqqqxxx']);
    expect(result.code).toBe(0);
    const table = await rep(['--format', 'table', 'search', 'zzzqqqxxx']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/no matches/i);
  });

  it('ndjson gives one line per result with its type', async () => {
    const result = await rep(['--format', 'ndjson', 'search', 'coffee']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    // Exactly the results of the JSON body, in its order, each with its type.
    const body = JSON.parse((await rep(['--format', 'json', 'search', 'coffee'])).stdout) as Record<string, Array<Record<string, unknown>>>;
    const typed = (key: string, type: string) => (body[key] ?? []).map((entry) => ({ type, ...entry }));
    const expected = [...typed('companies', 'company'), ...typed('cities', 'city'), ...typed('categories', 'category')];
    expect(expected.length).toBeGreaterThan(0);
    expect(lines).toEqual(expected);
  });

  it('a search text with a line break is a usage error sent nowhere', async () => {
    const result = await rep(['search', 'coffee\nshop'], { REP_BASE_URL: `http://127.0.0.1:${await closedPort()}/api` });
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toBe('rep: the search text "coffee\\nshop" holds a line break\nhint: search one text at a time, e.g. rep search coffee\n');
  });

  it('a blank search is a usage error sent nowhere', async () => {
    const result = await rep(['search', ' ', ' '], { REP_BASE_URL: `http://127.0.0.1:${await closedPort()}/api` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rep: the search text is empty\n/);
  });
});

describe('pulse', () => {
  it('is the exact mean over the data set', async () => {
    const result = await rep(['pulse']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.index).toBe(pulseIndex(sandboxDataOn(Date.now())));
  });

  it('--json is the same as --format json', async () => {
    const result = await rep(['pulse', '--json']);
    expect(JSON.parse(result.stdout).companies).toBe(sandboxData().companies.length);
  });
});

describe('status', () => {
  it('counts requests sent in the last hour and shows the last rate-limit headers', async () => {
    const limited = await startSandbox({ port: 0, limit: 7, key: 'status-test-key-0001', cacheControl: 'no-store' });
    const env = { REP_BASE_URL: limited.url, REP_API_KEY: 'status-test-key-0001' };
    try {
      // One home for the whole test: status reads the count the two pulses left there.
      for (let i = 0; i < 2; i++) expect((await rep(['pulse'], env)).code).toBe(0);
      const result = await rep(['status'], env);
      expect(result.code).toBe(0);
      const status = JSON.parse(result.stdout);
      expect(status).toMatchObject({ base_url: limited.url, base_url_source: 'env', key: '****0001', key_source: 'env', requests_last_hour: 2 });
      expect(status.rate_limit).toMatchObject({ limit: 7, remaining: 5 });
      expect(Date.parse(status.rate_limit.reset_at)).toBeGreaterThan(Date.parse(status.rate_limit.seen_at));
      const table = await rep(['status', '--format', 'table'], env);
      expect(table.stdout).toMatch(/Requests, last hour\s+2\n/);
      expect(table.stdout).toMatch(/Last rate limit seen\s+5 of 7 left, resets /);
    } finally {
      await limited.close();
    }
  });
});

describe('--sandbox', () => {
  it('runs one command against an in-process sandbox and writes only in its own folder', async () => {
    const result = await rep(['--sandbox', 'audit', 'Кофейня Ромашка'], { REP_BASE_URL: undefined, REP_API_KEY: undefined });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).company.name).toBe('Кофейня Ромашка');
    expect(readdirSync(session.home().dir).sort()).toEqual(['cache', 'state']);
    expect(readdirSync(join(session.home().dir, 'state', 'rep'))).toEqual(['sandbox']);
    expect(readdirSync(join(session.home().dir, 'cache', 'rep'))).toEqual(['sandbox']);
  });
});

describe('rep sandbox', () => {
  it('prints its base URL and key, serves requests, and stops cleanly on Ctrl-C', async () => {
    const home = session.home();
    const stop = new AbortController();
    let seen = '';
    let announced: (found: [string, string]) => void = () => {};
    const ready = new Promise<[string, string]>((resolve) => (announced = resolve));
    const server = runCli(['sandbox', '--port', '0'], {
      home,
      signal: stop.signal,
      onStdout(chunk) {
        seen += chunk;
        const url = /base_url=(\S+)/.exec(seen)?.[1];
        const key = /api_key=(\S+)/.exec(seen)?.[1];
        if (url && key) announced([url, key]);
      },
    });
    try {
      // Should the server exit without announcing itself, fail now rather than at the test timeout.
      const [url, key] = await Promise.race([ready, server.then((early) => Promise.reject(new Error(`rep sandbox exited ${early.code}: ${early.stderr}`)))]);
      const client = await rep(['pulse'], { REP_BASE_URL: url, REP_API_KEY: key });
      expect(client.code).toBe(0);
      expect(JSON.parse(client.stdout).index).toBe(pulseIndex(sandboxDataOn(Date.now())));
    } finally {
      stop.abort(); // never leave the server running, whatever failed above
    }
    const result = await server;
    expect(result.code).toBe(0);
  });
});

describe('exit codes', () => {
  it('4: no base URL, with a hint', async () => {
    const result = await rep(['pulse'], { REP_BASE_URL: undefined });
    expect(result.code).toBe(4);
    expect(result.stderr).toBe('rep: no base URL is set\nhint: run `rep login --base-url URL`, set REP_BASE_URL, or try `--sandbox`\n');
  });

  it('4: the key is rejected (401), and the key is not echoed', async () => {
    const result = await rep(['pulse'], { REP_API_KEY: 'wrong-key-1234567890' });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^rep: .*401.*\nhint: .*rep login/);
    expect(result.stderr).not.toContain('wrong-key-1234567890');
    expect(result.stdout).toBe('');
  });

  it('5: rate limited, saying when it resets and how to go on', async () => {
    const limited = await startSandbox({ port: 0, limit: 1, cacheControl: 'no-store' });
    try {
      const env = { REP_BASE_URL: limited.url, REP_API_KEY: limited.key };
      expect((await rep(['pulse'], env)).code).toBe(0);
      const result = await rep(['pulse'], env);
      expect(result.code).toBe(5);
      expect(result.stdout).toBe('');
      const [message, hint, extra] = result.stderr.split('\n');
      expect(message).toMatch(/^rep: rate limit/);
      expect(message).toMatch(/1 request/);
      expect(message).toMatch(/\d{1,2}:\d{2}/);
      expect(hint).toMatch(/^hint: .*--wait.*higher tier/);
      expect(extra).toBe('');
    } finally {
      await limited.close();
    }
  });

  it('6: connection refused', async () => {
    const result = await rep(['pulse'], { REP_BASE_URL: `http://127.0.0.1:${await closedPort()}/api` });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^rep: cannot connect to 127\.0\.0\.1:\d+ \(connection refused\)\nhint: /);
  });

  it('2: unknown command and unknown option, one line each', async () => {
    for (const args of [['bogus'], ['audit', '--bogus', 'x'], ['--format', 'xml', 'pulse']]) {
      const result = await rep(args);
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n')).toHaveLength(3);
      expect(result.stderr).toMatch(/^rep: .*\nhint: /);
    }
  });

  it('2: a key passed as --option=value is refused without echoing it', async () => {
    const result = await rep(['--api-key=sk_live_secret_value', 'pulse']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("rep: unknown option '--api-key=…'\nhint: see `rep pulse --help`\n");
  });

  it('0: rep alone prints help on stdout; --version prints the version', async () => {
    const help = await runCli([], { home: session.home() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: rep');
    expect(help.stderr).toBe('');
    const version = await runCli(['--version'], { home: session.home() });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('--debug shows the request, the response line with its timing and the rate-limit headers, never the key', async () => {
    const result = await rep(['--debug', 'pulse']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`debug: > GET ${sandbox.url}/pulse\n`);
    expect(result.stderr).toMatch(/^debug: < 200 OK \(\d+ ms\)$/m);
    expect(result.stderr).toMatch(/^debug: < x-ratelimit-limit: 10000$/m);
    expect(result.stderr).toMatch(/^debug: < x-ratelimit-remaining: \d+$/m);
    expect(result.stderr).not.toContain(sandbox.key);
    expect(JSON.parse(result.stdout).index).toBe(pulseIndex(sandboxDataOn(Date.now())));
  });
});
