// Batch audits through the CLI over real HTTP: input order under random latency, one request per
// distinct name, records streamed as the input-order prefix completes, and exit codes.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep, type InProcessOptions } from './helpers/cli.js';
import { auditBody, serveCompanyAudits, type CompanyAuditOptions, type CompanyAudits } from './helpers/companies.js';
import { startFaultServer } from './helpers/fault-server.js';
import { startRecordingServer } from './helpers/servers.js';

const fixture = useRep({ env: () => ({ REP_API_KEY: 'test-key' }) });
let baseUrl: string | undefined;

/** This test's audit server: the base URL every `rep` below uses. */
async function serve(options: CompanyAuditOptions): Promise<CompanyAudits> {
  const server = await fixture.server();
  baseUrl = server.baseUrl.href;
  return serveCompanyAudits(server, options);
}

function rep(args: string[], options: Omit<InProcessOptions, 'home'> = {}) {
  return fixture.rep(args, { ...options, env: { REP_BASE_URL: baseUrl, ...options.env } });
}

/** A base URL whose server is gone: every request fails with a network error (exit 6). */
async function goneBaseUrl(): Promise<string> {
  const gone = await startFaultServer();
  await gone.close();
  return gone.baseUrl.href;
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const names = (count: number, prefix = 'Company') => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`);

describe('rep audit: a batch', () => {
  it('writes one record per name in input order, whatever order the answers come in', async () => {
    const input = names(24);
    await serve({ companies: input, maxDelayMs: 40 });
    const result = await rep(['--format', 'ndjson', 'audit', '--concurrency', '6', ...input]);
    expect(result.stderr).toBe('24 names: 24 audited\n');
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual(input.map((name) => ({ query: name, result: auditBody(name) })));
  });

  it('sends each distinct name once and still writes a record for every duplicate', async () => {
    const input = ['Alpha', 'Beta', 'Alpha', 'Missing', 'Beta', 'Alpha', 'Missing'];
    const srv = await serve({ companies: ['Alpha', 'Beta'], maxDelayMs: 20 });
    const result = await rep(['--format', 'ndjson', 'audit', ...input]);
    expect(lines(result.stdout).map((record) => record.query)).toEqual(input);
    expect([srv.count('Alpha'), srv.count('Beta'), srv.count('Missing')]).toEqual([1, 1, 1]);
    expect(lines(result.stdout)[5]).toEqual({ query: 'Alpha', result: auditBody('Alpha') });
    expect(lines(result.stdout)[6]).toEqual({ query: 'Missing', error: { exit: 3, message: 'no company named "Missing"' } });
    expect(result.code).toBe(3);
  });

  it("a duplicate far behind its first is still not sent again: its answer comes back from the dedupe's file", async () => {
    const input = [...names(1100), 'Company 1', 'Company 1050'];
    const srv = await serve({ companies: input });
    const result = await rep(['--format', 'ndjson', 'audit', '--file', '-'], { input: input.join('\n') });
    expect(result.stderr).toBe('1102 names: 1102 audited\n');
    const records = lines(result.stdout);
    expect([srv.count('Company 1'), srv.count('Company 1050')]).toEqual([1, 1]);
    expect(records.slice(-2)).toEqual([records[0], records[1049]]);
  });

  it('a planned file whose names mostly come once: the dedupe keeps the ones that come again, and none is sent twice', async () => {
    const input = [...names(1100), 'Company 1', 'Company 1050', 'Company 1'];
    const srv = await serve({ companies: input });
    const file = join(fixture.home().dir, 'far.txt');
    writeFileSync(file, `${input.join('\n')}\n`);
    const result = await rep(['--no-cache', '--format', 'ndjson', 'audit', '--file', file]);
    // The plan counts the distinct names: 1,100 requests.
    expect(result.stderr).toMatch(/^rep: this batch needs 1100 requests; .*\n1103 names: 1103 audited\n$/);
    const records = lines(result.stdout);
    expect(records.map((record) => record.query)).toEqual(input);
    expect([srv.count('Company 1'), srv.count('Company 1050'), srv.count('Company 2')]).toEqual([1, 1, 1]);
    expect(records.slice(-3)).toEqual([records[0], records[1049], records[0]]);
  });

  it("tells the CLI a batch starts (it keeps V8's heap small for it), and a single audit does not", async () => {
    await serve({ companies: ['Alpha', 'Beta'] });
    let told = 0;
    const longRun = () => void told++;
    expect((await rep(['--format', 'ndjson', 'audit', 'Alpha', 'Beta'], { longRun })).code).toBe(0);
    expect(told).toBe(1);
    expect((await rep(['--format', 'ndjson', 'audit', 'Alpha'], { longRun })).code).toBe(0);
    expect(told).toBe(1);
  });

  it('keeps at most --concurrency requests in flight: a slot frees when its answer is in, not once it is stored', async () => {
    const input = names(5);
    const srv = await serve({ companies: input, hold: input.slice(0, 3) });
    const running = rep(['--format', 'ndjson', 'audit', '--concurrency', '2', ...input]);
    await srv.arrived('Company 2');
    srv.release('Company 1');
    await srv.arrived('Company 3'); // Company 1's slot
    expect(srv.received()).toEqual(input.slice(0, 3)); // Companies 2 and 3 are held: no third request
    srv.release('Company 2');
    await srv.arrived('Company 4');
    expect(srv.received()).toEqual(input.slice(0, 4));
    srv.release('Company 3');
    const result = await running;
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((record) => record.query)).toEqual(input);
    expect(srv.received()).toEqual(input);
  });

  it('writes the records ready together in one write: 6 records behind a held answer come out as one chunk', async () => {
    const input = names(6);
    const srv = await serve({ companies: input, hold: ['Company 1'] });
    const chunks: string[] = [];
    const running = rep(['--format', 'ndjson', 'audit', '--concurrency', '6', ...input], { onStdout: (chunk) => void chunks.push(chunk) });
    // The other five are answered, stored and their points recorded while the first is held: then it goes.
    const journal = join(fixture.home().env.XDG_STATE_HOME!, 'rep', 'history', 'journal');
    const recorded = () =>
      (existsSync(journal) ? readdirSync(journal) : []).reduce(
        (count, shard) => count + (readFileSync(join(journal, shard), 'utf8').match(/"score"/g)?.length ?? 0),
        0,
      );
    while (recorded() < 5) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setImmediate(resolve)); // their calls settle on the write's turn
    expect(chunks).toEqual([]);
    srv.release('Company 1');
    const result = await running;
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((record) => record.query)).toEqual(input);
    expect(chunks.filter((chunk) => chunk.includes('\n'))).toHaveLength(1);
  });

  it("does not hang when the first name's cached answer goes stale between the plan and its lookup", async () => {
    // Run 1 caches Alpha's answer, and the server says 1 request is left this hour. Run 2's plan then
    // finds Alpha fresh (14 min old) and says the other three need more than is left; on that line the
    // clock moves past the max age (15 min), so Alpha's own lookup misses and asks for a request after
    // Beta and Gamma took the room ahead of the output (concurrency 2). It must still be sent.
    const server = await fixture.server();
    baseUrl = server.baseUrl.href;
    server.always('/api/audit', (request) => ({
      body: auditBody(request.q ?? ''),
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 7200) },
    }));
    const start = Date.now();
    const first = await rep(['--format', 'ndjson', 'audit', 'Alpha'], { now: () => start });
    expect(first.code).toBe(0);
    let clock = start + 14 * 60_000;
    const second = await rep(['--format', 'ndjson', 'audit', '--concurrency', '2', 'Alpha', 'Beta', 'Gamma', 'Delta'], {
      now: () => clock,
      onStderr: (text) => {
        if (text.includes('this batch needs')) clock = start + 16 * 60_000;
      },
    });
    expect(second.stderr).toMatch(/^rep: this batch needs 3 requests; 1 is left this hour/);
    expect(second.code).toBe(0);
    expect(lines(second.stdout).map((record) => record.query)).toEqual(['Alpha', 'Beta', 'Gamma', 'Delta']);
    expect(server.requests.filter((request) => request.q === 'Alpha')).toHaveLength(2); // stale: asked again
  });

  it('streams: the first record is out before the last request is answered', async () => {
    const input = names(6);
    const last = input.at(-1) as string;
    const srv = await serve({ companies: input, hold: [last] });
    let seenFirst = false;
    const result = await rep(['--format', 'ndjson', 'audit', ...input], {
      onStdout: (chunk) => {
        // The last answer is held until a record has arrived; a buffering batch would never finish.
        if (!seenFirst && chunk.includes('\n')) {
          seenFirst = true;
          srv.release(last);
        }
      },
    });
    expect(seenFirst).toBe(true);
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((record) => record.query)).toEqual(input);
  });

  it('reads --file: names trimmed, blank lines and # comments skipped, CRLF accepted', async () => {
    const srv = await serve({ companies: ['Alpha', 'Beta Coffee'] });
    const file = join(fixture.home().dir, 'names.txt');
    writeFileSync(file, '# companies to check\r\n\r\n  Alpha  \r\n\t\r\nBeta Coffee\r\n   # indented comment\r\n');
    const result = await rep(['--format', 'ndjson', 'audit', '--file', file]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((record) => record.query)).toEqual(['Alpha', 'Beta Coffee']);
    expect(srv.received().sort()).toEqual(['Alpha', 'Beta Coffee']);
  });

  it.each([[['audit', '-']], [['audit', '--file', '-']], [['audit', '-f', '-']]])('reads names from stdin with %j', async (args) => {
    await serve({ companies: ['Alpha', 'Beta'] });
    const result = await rep(['--format', 'ndjson', ...args], { input: 'Alpha\n\n# skip\nBeta\n' });
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((record) => record.query)).toEqual(['Alpha', 'Beta']);
  });

  it('reads arguments before the file, and a single name with - still makes a batch', async () => {
    await serve({ companies: ['Alpha', 'Beta', 'Gamma'] });
    const file = join(fixture.home().dir, 'names.txt');
    writeFileSync(file, 'Gamma\n');
    const result = await rep(['--format', 'ndjson', 'audit', 'Alpha', '-', '--file', file], { input: 'Beta\n' });
    expect(lines(result.stdout).map((record) => record.query)).toEqual(['Alpha', 'Beta', 'Gamma']);
  });

  it('json: an array of records in input order', async () => {
    await serve({ companies: ['Alpha'] });
    const result = await rep(['--json', 'audit', 'Alpha', 'Nobody']);
    expect(JSON.parse(result.stdout)).toEqual([
      { query: 'Alpha', result: auditBody('Alpha') },
      { query: 'Nobody', error: { exit: 3, message: 'no company named "Nobody"' } },
    ]);
  });

  it('csv: one row per company, a row per failure', async () => {
    await serve({ companies: ['Alpha'] });
    const result = await rep(['--format', 'csv', 'audit', 'Alpha', 'Nobody']);
    expect(result.stdout.trimEnd().split(/\r?\n/)).toEqual([
      'query,name,city,category,score,reviews,change,error',
      'Alpha,Alpha,Madrid,Cafe,55,150,,',
      'Nobody,,,,,,,"no company named ""Nobody"""',
    ]);
  });

  it('csv --csv-sources: a header, a row per source with the company, a row per failure', async () => {
    await serve({ companies: ['Alpha'] });
    const result = await rep(['--format', 'csv', 'audit', '--csv-sources', 'Alpha', 'Nobody']);
    expect(result.stdout.trimEnd().split(/\r?\n/)).toEqual([
      'query,company,score,source,rating,reviews,error',
      'Alpha,Alpha,55,Yelp,4.5,120,',
      'Alpha,Alpha,55,Zoon,4,30,',
      'Nobody,,,,,,"no company named ""Nobody"""',
    ]);
  });

  it('table: a summary table with one row per name', async () => {
    await serve({ companies: ['Alpha'] });
    const result = await rep(['--format', 'table', '--no-color', 'audit', 'Alpha', 'Nobody']);
    expect(result.stdout).toMatch(/Alpha[\s\S]*Nobody/);
    expect(result.stdout).toContain('not found');
  });

  it.each([[[]], [['--quiet']]])('--concurrency 20 %j: no Node warning on stderr, however many requests are in flight', async (quiet) => {
    const input = names(30);
    const last = input.at(-1) as string;
    const srv = await serve({ companies: input, hold: input.slice(0, 20) });
    // All 20 first names are held until the 20th has arrived: 20 requests are in flight at once.
    void srv.arrived(input[19] as string).then(() => {
      for (const name of input.slice(0, 20)) srv.release(name);
    });
    // The built CLI: a Node warning would go to the process's own stderr.
    const result = await fixture.spawn([...quiet, '--format', 'ndjson', 'audit', '--concurrency', '20', ...input], { env: { REP_BASE_URL: baseUrl } });
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((record) => record.query)).toEqual(input);
    expect(srv.count(last)).toBe(1);
    expect(result.stderr).not.toMatch(/warning/i);
  });

  it('a single name without --file stays one request rendered as the plain body', async () => {
    await serve({ companies: ['Alpha'] });
    const result = await rep(['--json', 'audit', 'Alpha']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(auditBody('Alpha'));
    expect(result.stderr).toBe('');
  });
});

describe('rep audit: batch exit codes and messages', () => {
  it('exits with the code of the first failure in input order and says how many failed', async () => {
    await serve({ companies: ['Alpha'], maxDelayMs: 20 });
    const result = await rep(['--format', 'ndjson', 'audit', 'Alpha', 'Nobody', 'Alpha', 'Nemo']);
    expect(result.code).toBe(3);
    expect(lines(result.stdout)).toHaveLength(4);
    expect(result.stderr).toBe(
      '4 names: 2 audited, 2 not found\nrep: 2 of 4 names not audited: not found\nhint: each name\'s record says why (its "error" field; Status in a table)\n',
    );
  });

  it('a failure of another kind counts as failed and its code wins when it comes first', async () => {
    await serve({ companies: ['Alpha'] });
    const result = await rep(['--format', 'ndjson', 'audit', 'Alpha', 'Beta'], { env: { REP_BASE_URL: await goneBaseUrl() } });
    expect(result.code).toBe(6);
    expect(lines(result.stdout).map((record) => (record.error as { exit: number }).exit)).toEqual([6, 6]);
    expect(result.stderr).toContain('2 names: 0 audited, 2 failed\nrep: 2 of 2 names not audited: failed\n');
  });

  it('--quiet drops the summary line but keeps the error', async () => {
    await serve({ companies: ['Alpha'] });
    const ok = await rep(['--quiet', '--format', 'ndjson', 'audit', 'Alpha', 'Alpha']);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const failed = await rep(['--quiet', '--format', 'ndjson', 'audit', 'Alpha', 'Nobody']);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/^rep: 1 of 2 names not audited: not found\n/);
  });

  it.each(['table', 'csv', 'ndjson'])('a body nested 20,000 deep is a result like any other (%s)', async (format) => {
    const body = `${'{"data":'.repeat(20_000)}{"score":7}${'}'.repeat(20_000)}`; // as text: too deep for JSON.stringify
    const srv = fixture.track(await startRecordingServer({ headers: { 'content-type': 'application/json' }, body }));
    const result = await rep(['--format', format, 'audit', 'Deep', 'Deeper'], { env: { REP_BASE_URL: srv.baseUrl.href } });
    expect(result.stderr).toBe('2 names: 2 audited\n');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/call stack/i);
  });

  it('an input with no names is a usage error, and nothing is sent', async () => {
    const srv = await serve({ companies: [] });
    const file = join(fixture.home().dir, 'empty.txt');
    writeFileSync(file, '# nothing here\n\n   \n');
    const result = await rep(['--format', 'ndjson', 'audit', '--file', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rep: no company names in the input\nhint: /);
    expect(srv.received()).toEqual([]);
  });

  it.each([
    [['audit', 'Alpha', '  '], /^rep: a company name is empty\n/],
    [['audit', '--file', 'no-such-file.txt'], /^rep: cannot read no-such-file.txt: no such file\n/],
    [['audit', '-', '--file', '-'], /^rep: stdin \(-\) is given more than once\n/],
  ])('%j is a usage error sent nowhere', async (args, message) => {
    const srv = await serve({ companies: ['Alpha'] });
    const result = await rep(['--format', 'ndjson', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(srv.received()).toEqual([]);
  });
});

describe('rep audit: one vocabulary for the summary and the final line', () => {
  it('the final line counts the names the summary says were not audited, in its words', async () => {
    const input = names(4);
    await serve({ companies: input });
    const result = await rep(['--format', 'ndjson', 'audit', ...input, 'Nobody']);
    expect(result.code).toBe(3);
    const [summary, error] = result.stderr.split('\n');
    expect(summary).toBe('5 names: 4 audited, 1 not found');
    expect(error).toBe('rep: 1 of 5 names not audited: not found');
  });

  it('several kinds of failure are each counted, in the same words', async () => {
    await serve({ companies: ['Alpha'] });
    const gone = await goneBaseUrl();
    // Nobody is not found on the live server; on the gone one, every name fails (exit 6).
    const first = await rep(['--format', 'ndjson', 'audit', 'Alpha', 'Nobody']);
    const second = await rep(['--format', 'ndjson', 'audit', 'Alpha', 'Nobody'], { env: { REP_BASE_URL: gone } });
    expect(first.stderr.split('\n').slice(0, 2)).toEqual(['2 names: 1 audited, 1 not found', 'rep: 1 of 2 names not audited: not found']);
    expect(second.stderr.split('\n').slice(0, 2)).toEqual(['2 names: 0 audited, 2 failed', 'rep: 2 of 2 names not audited: failed']);
  });
});

describe('rep audit: unquoted words', () => {
  const QUOTE_HINT = "hint: to audit one company whose name has spaces, quote it: rep audit 'Blue Bottle Coffee'\n";

  it('when every bare word is not found, the hint shows the name quoted', async () => {
    await serve({ companies: ['Blue Bottle Coffee'] });
    const result = await rep(['--format', 'ndjson', 'audit', 'Blue', 'Bottle', 'Coffee']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(`3 names: 0 audited, 3 not found\nrep: 3 of 3 names not audited: not found\n${QUOTE_HINT}`);
  });

  it('the quoted form is safe to paste: quotes, $ and a leading dash', async () => {
    await serve({ companies: [] });
    const quotes = await rep(['--format', 'ndjson', 'audit', "Joe's", '$HOME', 'Diner']);
    expect(quotes.stderr).toContain(`hint: to audit one company whose name has spaces, quote it: rep audit 'Joe'\\''s $HOME Diner'\n`);
    const dash = await rep(['--format', 'ndjson', 'audit', '--', '-Foo', 'Bar']);
    expect(dash.stderr).toContain("quote it: rep audit -- '-Foo Bar'\n");
  });

  it('no such hint when a word was found, a name had spaces, or names came from a file', async () => {
    await serve({ companies: ['Blue'] });
    const found = await rep(['--format', 'ndjson', 'audit', 'Blue', 'Bottle', 'Coffee']);
    const spaced = await rep(['--format', 'ndjson', 'audit', 'Blue Bottle', 'Coffee']);
    const file = join(fixture.home().dir, 'names.txt');
    writeFileSync(file, 'Bottle\nCoffee\n');
    const fromFile = await rep(['--format', 'ndjson', 'audit', '--file', file]);
    for (const result of [found, spaced, fromFile]) {
      expect(result.code).toBe(3);
      expect(result.stderr).not.toContain('quote it');
      expect(result.stderr).toMatch(/\nhint: each name's record says why/);
    }
  });
});

describe('rep audit --batch: records even for one name', () => {
  it('json: an array of one record; ndjson: one record; csv: the batch columns', async () => {
    await serve({ companies: ['Alpha'] });
    const json = await rep(['--json', 'audit', '--batch', 'Alpha']);
    expect([json.code, json.stderr]).toEqual([0, '1 name: 1 audited\n']);
    expect(JSON.parse(json.stdout)).toEqual([{ query: 'Alpha', result: auditBody('Alpha') }]);
    const ndjson = await rep(['--format', 'ndjson', 'audit', 'Alpha', '--batch']);
    expect(lines(ndjson.stdout)).toEqual([{ query: 'Alpha', result: auditBody('Alpha') }]);
    const csv = await rep(['--format', 'csv', 'audit', 'Alpha', '--batch']);
    expect(csv.stdout.split('\n')[0]).toBe('query,name,city,category,score,reviews,change,error');
  });

  it('table: the batch summary; a name not found keeps its record and the batch exit code', async () => {
    await serve({ companies: [] });
    const table = await rep(['--format', 'table', '--no-color', 'audit', '--batch', 'Nobody']);
    expect(table.code).toBe(3);
    expect(table.stdout).toMatch(/│ Nobody +│.*│ not found +│/);
    const json = await rep(['--json', 'audit', '--batch', 'Nobody']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toEqual([{ query: 'Nobody', error: { exit: 3, message: 'no company named "Nobody"' } }]);
    expect(json.stderr).toBe(
      '1 name: 0 audited, 1 not found\nrep: 1 of 1 name not audited: not found\nhint: each name\'s record says why (its "error" field; Status in a table)\n',
    );
  });

  it('with several names it changes nothing, and without a name it is still a usage error', async () => {
    await serve({ companies: ['Alpha', 'Beta'] });
    const several = await rep(['--json', 'audit', '--batch', 'Alpha', 'Beta']);
    expect(JSON.parse(several.stdout)).toEqual([
      { query: 'Alpha', result: auditBody('Alpha') },
      { query: 'Beta', result: auditBody('Beta') },
    ]);
    const none = await rep(['--json', 'audit', '--batch']);
    expect([none.code, none.stdout]).toEqual([2, '']);
    expect(none.stderr).toMatch(/^rep: missing company name\n/);
  });
});
