// `--fields` (the named fields of the normalised records, any format) and `--query` (JMESPath over the
// JSON that would be printed), end to end through main() against the sandbox and strict test servers.
import { describe, expect, it } from 'vitest';
import { FIELD_NAMES } from '../src/output/field-names.js';
import { useRep } from './helpers/cli.js';
import { useSandbox } from './helpers/sandbox.js';

const sandbox = useSandbox();
const session = useRep();

function rep(args: string[], options: Parameters<typeof session.rep>[1] = {}) {
  return session.rep(args, { ...options, env: { REP_BASE_URL: sandbox.url, REP_API_KEY: sandbox.key, ...options.env } });
}

describe('--fields', () => {
  it('picks the same fields whichever way the server groups a search', async () => {
    const grouped = await session.server();
    grouped.expect('/api/search', { body: { companies: [{ name: 'Acme', score: 80, id: 7 }], cities: [{ name: 'Oslo' }] } });
    const flat = await session.server();
    flat.expect('/api/search', {
      body: {
        results: [
          { type: 'company', title: 'Acme', rating: '80' },
          { type: 'city', name: 'Oslo' },
        ],
      },
    });
    const outputs = [];
    for (const server of [grouped, flat]) {
      const result = await session.rep(['search', 'acme', '--fields', 'type,name,score'], { env: { REP_BASE_URL: `${server.origin}/api` } });
      expect(result.code).toBe(0);
      outputs.push(JSON.parse(result.stdout));
    }
    expect(outputs[0]).toEqual([
      { type: 'company', name: 'Acme', score: 80 },
      { type: 'city', name: 'Oslo', score: null },
    ]);
    expect(outputs[1]).toEqual(outputs[0]);
  });

  it('prints an audit as one object in json, and the same fields in csv, markdown, ndjson and table', async () => {
    const json = await rep(['audit', 'Royal Bear Coffee', '--fields', 'name,score,sources']);
    expect(json.code).toBe(0);
    const record = JSON.parse(json.stdout);
    expect(Object.keys(record)).toEqual(['name', 'score', 'sources']);
    expect(record.name).toBe('Royal Bear Coffee');
    const csv = await rep(['audit', 'Royal Bear Coffee', '--fields', 'score,name', '--format', 'csv']);
    expect(csv.stdout).toBe(`score,name\n${record.score},Royal Bear Coffee\n`);
    const markdown = await rep(['audit', 'Royal Bear Coffee', '--fields', 'name', '--format', 'markdown']);
    expect(markdown.stdout).toBe('| name |\n| --- |\n| Royal Bear Coffee |\n');
    const ndjson = await rep(['audit', 'Royal Bear Coffee', '--fields', 'name', '--format', 'ndjson']);
    expect(ndjson.stdout).toBe('{"name":"Royal Bear Coffee"}\n');
    const table = await rep(['audit', 'Royal Bear Coffee', '--fields', 'name,score', '--format', 'table']);
    expect(table.stdout).toMatch(/│ name\s+│ score │/);
    expect(table.stdout).toContain('Royal Bear Coffee');
  });

  it('gives a batch one record per name, errors included, streamed as ndjson', async () => {
    const result = await rep(['audit', 'Royal Bear Coffee', 'Nobody Such', '--fields', 'query,score,exit', '--format', 'ndjson']);
    expect(result.code).toBe(3);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { query: 'Royal Bear Coffee', score: expect.any(Number), exit: null },
      { query: 'Nobody Such', score: null, exit: 3 },
    ]);
  });

  it('gives the change since the previous point, and picks history and pulse fields', async () => {
    await rep(['audit', 'Royal Bear Coffee']);
    const second = await rep(['audit', 'Royal Bear Coffee', '--fields', 'name,change']);
    expect(JSON.parse(second.stdout)).toEqual({ name: 'Royal Bear Coffee', change: 0 });
    const history = await rep(['history', 'Royal Bear Coffee', '--fields', 'score,change', '--format', 'csv']);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/^score,change\n[\d.]+,\n[\d.]+,0\n$/);
    const pulse = await rep(['pulse', '--fields', 'index']);
    expect(Object.keys(JSON.parse(pulse.stdout))).toEqual(['index']);
  });

  it('exits 2 on an unknown field, listing the valid ones, and on a field the command lacks, sending nothing', async () => {
    const unknown = await rep(['search', 'coffee', '--fields', 'name,nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`rep: invalid value 'name,nope' for --fields: unknown field nope; fields: ${FIELD_NAMES.join(', ')}\n`);
    expect(unknown.stdout).toBe('');
    const server = await session.server();
    const lacking = await session.rep(['pulse', '--fields', 'name'], { env: { REP_BASE_URL: `${server.origin}/api` } });
    expect(lacking.code).toBe(2);
    expect(lacking.stderr).toBe('rep: rep pulse has no field name\nhint: its fields: index\n');
    const status = await rep(['status', '--fields', 'name']);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('rep: --fields does not apply to rep status');
  });

  it("catches gh's --json score,name (no request), and -- still audits a company of that name", async () => {
    const server = await session.server();
    const env = { REP_BASE_URL: `${server.origin}/api` };
    const habit = await session.rep(['audit', '--json', 'score,name'], { env });
    expect(habit.code).toBe(2);
    expect(habit.stderr).toBe(
      "rep: --json takes no field list: 'score,name' would be read as a name\nhint: pick fields with --fields score,name (see `rep help fields`); to mean the name, put it after --\n",
    );
    server.expect('/api/audit', { body: { name: 'score,name', score: 1 } });
    const forced = await session.rep(['audit', '--json', '--', 'score,name'], { env });
    expect(forced.code).toBe(0);
    expect(server.requests.map((request) => request.q)).toEqual(['score,name']);
    server.expect('/api/audit', { body: { name: 'Smith,Jones', score: 2 } });
    const company = await session.rep(['audit', '--json', 'Smith,Jones'], { env });
    expect(company.code).toBe(0);
    expect(JSON.parse(company.stdout)).toEqual({ name: 'Smith,Jones', score: 2 });
  });
});

describe('--query', () => {
  it('runs JMESPath over the body and prints the result as JSON, even on a terminal', async () => {
    const result = await rep(['search', 'coffee', '--query', 'companies[:2].name', '--no-color'], { io: { stdoutIsTTY: true } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([expect.stringContaining('Coffee'), expect.stringContaining('Coffee')]);
  });

  it('reads the --fields records when both are given, and a batch as its array of records; ndjson a line an item', async () => {
    const fields = await rep(['search', 'coffee', '--fields', 'type,name', '--query', "[?type=='company'] | length(@)"]);
    expect(fields.stdout).toBe('5\n');
    const batch = await rep(['audit', 'Royal Bear Coffee', 'Nobody Such', '--query', '[].query', '--format', 'ndjson']);
    expect(batch.stdout).toBe('"Royal Bear Coffee"\n"Nobody Such"\n');
  });

  it('exits 2 with one line on a broken expression, before any request', async () => {
    const server = await session.server();
    const result = await session.rep(['pulse', '--query', 'index['], { env: { REP_BASE_URL: `${server.origin}/api` } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('rep: invalid --query "index[": Expected Star, got: EOF (JMESPath, see jmespath.org)\n');
    expect(server.requests).toEqual([]);
  });

  it('is a usage error with a table or csv format, which it cannot print', async () => {
    const result = await rep(['pulse', '--query', 'index', '--format', 'csv']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('rep: --query prints JSON, not csv\nhint: use --format json or ndjson with --query (see `rep help formats`)\n');
  });
});
