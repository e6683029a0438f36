// The answer cache across processes: the store bundled by esbuild, run by plain node, with put()'s lazy
// import of the freshness rules in a file of its own. Many processes writing and reading the same and
// different entries at once never read a torn or foreign answer; neither a put nor a hit loads an HTTP
// stack or any npm package.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnswerCache } from '../src/state/answer-cache.js';
import { writeLoadHooks } from './helpers/load-hooks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASE_URL = 'https://api.example.test/api';

// One cache call, then what it returned and which of Node's HTTP and TLS modules were loaded by then
// (mode 'control' loads node:http as well, to show that they are seen).
const PROBE = `const [mode, dir] = process.argv.slice(2);
if (mode === 'control') process.getBuiltinModule('node:http');
const { openAnswerCache } = await import('./answer-cache.js');
const cache = openAnswerCache(dir);
const key = { baseUrl: '${BASE_URL}', endpoint: 'audit', query: 'Acme', apiKey: 'probe-key' };
const result = mode === 'put'
  ? await cache.put(key, { status: 200, headers: { 'cache-control': 'max-age=600' }, bodyText: '{"score":1}', receivedAt: Date.now() })
  : cache.get(key, { maxAgeMs: 600000 }) ?? null;
const network = process.moduleLoadList.filter((name) => /^NativeModule (http|https|_http_\\w+|tls)$/.test(name));
console.log(JSON.stringify({ result, network }));
`;

// Writer \`id\` puts a shared entry and its own, then reads both back, \`rounds\` times; counts what was wrong.
const RACER = `const [dir, id, rounds] = process.argv.slice(2).map((arg, i) => (i === 0 ? arg : Number(arg)));
const { openAnswerCache } = await import('./answer-cache.js');
const cache = openAnswerCache(dir, { maxBytes: 50 * 1024 * 1024, evictEvery: 8 });
const key = (query) => ({ baseUrl: '${BASE_URL}', endpoint: 'search', query, apiKey: 'racer-key' });
const padding = (writer) => 'x'.repeat(20000 + writer * 997);
const body = (round) => JSON.stringify({ writer: id, round, padding: padding(id) });
const report = { torn: 0, misses: 0, wrong: 0, failedPuts: 0 };
function whole(text) {
  try {
    const doc = JSON.parse(text);
    return doc.padding === padding(doc.writer) ? doc : undefined;
  } catch {
    return undefined;
  }
}
for (let round = 0; round < rounds; round++) {
  for (const query of ['shared', 'own-' + id]) {
    const outcome = await cache.put(key(query), { status: 200, headers: {}, bodyText: body(round), receivedAt: Date.now() });
    if (!outcome.stored) report.failedPuts++;
  }
  for (const query of ['shared', 'own-' + id]) {
    const hit = cache.get(key(query), { maxAgeMs: 3600000 });
    const doc = hit && whole(hit.bodyText);
    if (!hit) report.misses++;
    else if (!doc) report.torn++;
    else if (query !== 'shared' && (doc.writer !== id || doc.round !== round)) report.wrong++;
  }
}
console.log(JSON.stringify(report));
`;

let out: string;
let register: string;
let metafile: Metafile;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'rep-cache-build-'));
  // Split chunks, so put()'s lazy import is a file of its own, as it is in dist/lib/undici.cjs (scripts/build.mjs).
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { 'answer-cache': 'src/state/answer-cache.ts' },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    metafile: true,
    logLevel: 'warning',
    banner: { js: "import { createRequire as __repCreateRequire } from 'node:module'; const require = __repCreateRequire(import.meta.url);" },
  });
  metafile = result.metafile;
  register = writeLoadHooks(out);
  writeFileSync(join(out, 'probe.mjs'), PROBE);
  writeFileSync(join(out, 'racer.mjs'), RACER);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

function runNode(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: out, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Runs probe.mjs; returns what it printed and the npm packages in the bundle files it loaded. */
async function probe(mode: 'get' | 'put' | 'control', dir: string): Promise<{ result: unknown; network: string[]; packages: string[] }> {
  const log = join(out, `loaded-${mode}-${Date.now()}.txt`);
  writeFileSync(log, '');
  const run = await runNode(['--import', register, 'probe.mjs', mode, dir], { REP_TEST_LOAD_LOG: log });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const loaded = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((url) => fileURLToPath(url));
  const packages = new Set<string>();
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (!loaded.includes(resolve(ROOT, output))) continue;
    for (const input of Object.keys(inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      if (name) packages.add(name);
    }
  }
  return { ...(JSON.parse(run.stdout) as { result: unknown; network: string[] }), packages: [...packages] };
}

describe('the answer cache across processes', () => {
  it("neither a put nor a hit loads an npm package, or any of Node's HTTP modules", async () => {
    const dir = join(out, 'cache-probe');
    const put = await probe('put', dir);
    expect(put.result).toEqual({ stored: true });
    expect(put.packages).toEqual([]); // its SHA-256, which names the entry, is rep's own (src/state/sha256.ts)
    expect(put.network).toEqual([]);

    const hit = await probe('get', dir);
    expect(hit.result).toMatchObject({ bodyText: '{"score":1}', status: 200 });
    expect(hit.packages).toEqual([]);
    expect(hit.network).toEqual([]);
    // The detector sees Node's HTTP modules where they are loaded.
    expect((await probe('control', dir)).network).toContain('NativeModule http');
  });

  it('30 processes writing and reading the same and their own entries at once never read a torn, missing or foreign answer', async () => {
    const dir = join(out, 'cache-race');
    const writers = 30;
    const rounds = 10;
    const runs = await Promise.all(Array.from({ length: writers }, (_, id) => runNode(['racer.mjs', dir, String(id), String(rounds)])));
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({ torn: 0, misses: 0, wrong: 0, failedPuts: 0 });
    }
    const cache = openAnswerCache(dir);
    expect(cache.stats().entries).toBe(writers + 1);
    for (let id = 0; id < writers; id++) {
      const last = cache.get({ baseUrl: BASE_URL, endpoint: 'search', query: `own-${id}`, apiKey: 'racer-key' }, { maxAgeMs: 3_600_000 });
      expect(JSON.parse(last?.bodyText ?? 'null')).toMatchObject({ writer: id, round: rounds - 1 });
    }
  }, 120_000);
});
