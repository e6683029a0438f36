// `npm run bench`: what rep costs on each Node line found (this node, plus those scripts/node-lines.sh put
// in .cache/node-lines/), next to Node's own floor on the same line, against the loopback server of
// scripts/bench/server.mjs. Interleaved rounds (each round runs every candidate of every line once, in a
// fresh shuffled order) so load from elsewhere hits all alike; prints one Markdown table of medians and
// ratios, each target marked met (✓) or not (✗). Not part of `npm test`; no test asserts a time.
//   node scripts/bench.mjs [--only startup|latency|batch|postgres] [--rounds 60] [--batch 10000] [--large 100000] [--batch-runs 3]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { bigBatchRows, printBigBatchRows } from './bench/big.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const REP = join(root, 'bin', 'rep.cjs');
const SCRIPTS = join(root, 'scripts', 'bench');
const TIME = '/usr/bin/time';
const KEY = 'rk_bench_0123456789';
const CACHED_NAME = 'Blue Bottle Coffee';
// The latency batch: 400 distinct names, 20 ms a request (server.mjs's /slow), rep's default concurrency.
const LATENCY_NAMES = 400;
const CONCURRENCY = 4;
const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    rounds: { type: 'string', default: '60' },
    batch: { type: 'string', default: '10000' },
    large: { type: 'string', default: '100000' },
    'batch-runs': { type: 'string', default: '3' },
  },
});
// 60 rounds: with 30, the median of a command near its bound moved too much from one run to the next
// on a shared 2-core VM (docs/performance.md); twice the rounds halve the variance of each median.
const ROUNDS = Number(flags.rounds);
const BATCH_NAMES = Number(flags.batch);
const BATCH_RUNS = Number(flags['batch-runs']);
const LARGE_NAMES = Number(flags.large);
const runs = (part) => flags.only === undefined || flags.only === part;

const temp = mkdtempSync(join(tmpdir(), 'rep-bench-'));
let server;
const cleanup = () => {
  server?.kill('SIGTERM');
  server = undefined;
  rmSync(temp, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

try {
  const loadBefore = loadavg();
  const url = await startServer();
  const slowUrl = url.replace(/\/api$/, '/slow/api');
  const env = isolatedEnv('home', { REP_BASE_URL: url, REP_API_KEY: KEY, REP_MAX_AGE: '24h' });
  const lines = nodeLines();
  if (runs('startup') || runs('latency')) {
    const candidates = lines.flatMap((line) => startupCandidates(line, url));
    for (const candidate of candidates) check(candidate, env);
    const times = runs('startup') ? runRounds(candidates, env) : undefined;
    const batches = runs('latency') ? await latencyBatches(lines, await sandboxNames(), slowUrl) : undefined;
    printTable(lines, candidates, times, batches, loadBefore);
  }
  if (runs('batch')) {
    const big = await bigBatchRows({
      ...{ lines, url, temp, rep: REP, scripts: SCRIPTS, concurrency: CONCURRENCY, runs: BATCH_RUNS, names: BATCH_NAMES, largeNames: LARGE_NAMES },
      ...{ timed, isolatedEnv, median, shuffled },
    });
    console.log(
      `\nload average ${loadBefore.map((n) => n.toFixed(2)).join(' ')} before, ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')} after`,
    );
    printBigBatchRows(big, lines);
  }
  if (runs('postgres')) {
    const namesFile = join(temp, 'postgres-names.txt');
    writeFileSync(namesFile, `${Array.from({ length: BATCH_NAMES }, (_, i) => `Bench Company ${i + 1}`).join('\n')}\n`);
    const { benchPostgres } = await import('./bench/postgres.mjs');
    const tools = { isolatedEnv, timed, median, shuffled, ratio, REP, KEY, CACHED_NAME, namesFile, rounds: Math.min(ROUNDS, 30), batchRuns: BATCH_RUNS };
    await benchPostgres(lines.find((line) => line.node === process.execPath) ?? lines[0], url, tools);
  }
} finally {
  cleanup();
}

/** This node and each one under .cache/node-lines/ (or REP_NODE_LINES_DIR), one per version, oldest first. */
function nodeLines() {
  const dir = process.env.REP_NODE_LINES_DIR ?? join(root, '.cache', 'node-lines');
  const found = existsSync(dir)
    ? readdirSync(dir)
        .map((entry) => join(dir, entry, 'bin', 'node'))
        .filter((node) => existsSync(node))
    : [];
  const byVersion = new Map();
  for (const node of [process.execPath, ...found]) {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (version && !byVersion.has(version)) byVersion.set(version, { node, version, major: Number(/^v(\d+)/.exec(version)[1]) });
  }
  return [...byVersion.values()].sort((a, b) => a.major - b.major);
}

function startupCandidates(line, url) {
  const on = (name, args, extra = {}) => ({ line, name, args, ...extra });
  return [
    on('node -e 0', ['-e', '0']),
    on('rep --version', [REP, '--version']),
    on('GET node:http', [join(SCRIPTS, 'get-http.cjs'), url, KEY], { body: true }),
    on('GET fetch', [join(SCRIPTS, 'get-fetch.mjs'), url, KEY], { body: true }),
    on('rep pulse --json', [REP, 'pulse', '--json'], { body: true }),
    on('cached audit', [REP, 'audit', CACHED_NAME], { cached: true }),
  ];
}

/** scripts/bench/server.mjs in its own process (one in this process could not answer while spawnSync blocks). */
function startServer() {
  return new Promise((resolve, reject) => {
    server = spawn(process.execPath, [join(SCRIPTS, 'server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    server.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const url = /^base_url=(.+)$/m.exec(out)?.[1];
      if (url) resolve(url);
    });
    server.on('exit', (code) => reject(new Error(`the bench server exited (${code}) before printing its URL`)));
  });
}

/**
 * The caller's environment with a throwaway home under temp/<name>, no proxy and no Node options, so
 * every run reads and writes alike. NODE_EXTRA_CA_CERTS goes too: Node 20 reads those certificates as it
 * starts (a system bundle takes long), which would add the same to every row of that line and
 * hide rep's own cost in the ratios; 22 and 24 read them only for a TLS connection.
 */
function isolatedEnv(name, extra) {
  const env = { ...process.env };
  for (const variable of [
    'HTTPS_PROXY',
    'https_proxy',
    'HTTP_PROXY',
    'http_proxy',
    'NO_PROXY',
    'no_proxy',
    'NODE_OPTIONS',
    'NODE_EXTRA_CA_CERTS',
    'REP_CONFIG_DIR',
    'REP_CACHE_DIR',
    'REP_MAX_AGE',
    'NODE_COMPILE_CACHE',
    'NODE_DISABLE_COMPILE_CACHE',
  ])
    delete env[variable];
  const home = join(temp, name);
  mkdirSync(home, { recursive: true });
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), XDG_CACHE_HOME: join(home, 'cache'), ...extra };
}

/** Runs outside the clock: the candidate must work, a GET must print the pulse, and the cached audit must hit the cache. */
function check(candidate, env) {
  const what = `${candidate.name} on Node ${candidate.line.version}`;
  const result = spawnSync(candidate.line.node, candidate.args, { env, encoding: 'utf8' });
  if (result.status !== 0 || (candidate.body && !result.stdout.includes('"index"'))) {
    throw new Error(`${what} failed (exit ${result.status}): ${result.stderr.trim() || result.stdout.trim()}`);
  }
  if (candidate.cached) {
    const again = spawnSync(candidate.line.node, [...candidate.args, '--debug'], { env, encoding: 'utf8' });
    if (again.status !== 0 || !/cache: hit/.test(again.stderr)) throw new Error(`${what} was not answered from the cache: ${again.stderr.trim()}`);
  }
}

function runRounds(candidates, env) {
  const times = candidates.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of shuffled(candidates.map((_, i) => i))) {
      const { line, name, args } = candidates[index];
      const started = process.hrtime.bigint();
      const result = spawnSync(line.node, args, { env, stdio: 'ignore' });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`${name} on Node ${line.version} failed in round ${round + 1} (exit ${result.status})`);
      times[index].push(ms);
    }
    process.stderr.write(`\rstart-up round ${round + 1}/${ROUNDS}`);
  }
  process.stderr.write('\n');
  return times;
}

/**
 * 400 distinct names against the 20 ms server, alternated in shuffled order on every line: the bare
 * keep-alive script; `rep audit --file` with an empty answer cache and state each run but a code cache
 * made before the clock, as the start-up rows have theirs (the target is judged on this one); and the
 * same on a fresh home, the first run of rep on a machine, which compiles everything and writes its
 * code cache too.
 */
async function latencyBatches(lines, names, url) {
  const file = join(temp, 'latency-names.txt');
  writeFileSync(file, `${names.slice(0, LATENCY_NAMES).join('\n')}\n`);
  const primer = join(temp, 'latency-primer.txt');
  writeFileSync(primer, `${names.slice(LATENCY_NAMES, LATENCY_NAMES + 5).join('\n')}\n`);
  const args = (names) => [REP, 'audit', '--file', names, '--format', 'ndjson'];
  /** A home per line whose code cache lasts; answers and state go to `fresh`, a folder of the run's own. */
  const warmEnv = (line, fresh) =>
    isolatedEnv(`latency-code-${line.major}`, {
      REP_BASE_URL: url,
      REP_API_KEY: KEY,
      REP_CACHE_DIR: join(fresh, 'answers'),
      XDG_STATE_HOME: join(fresh, 'state'),
    });
  for (const line of lines) await timed(line.node, args(primer), warmEnv(line, join(temp, 'latency-primer')));
  const runs = new Map(lines.map((line) => [line, { rep: [], first: [], bare: [] }]));
  for (let run = 0; run < BATCH_RUNS; run++) {
    for (const [line, kind] of shuffled(lines.flatMap((line) => ['rep', 'first', 'bare'].map((kind) => [line, kind])))) {
      const fresh = join(temp, `latency-${run}`);
      const env = kind === 'rep' ? warmEnv(line, fresh) : isolatedEnv(`latency-${run}`, { REP_BASE_URL: url, REP_API_KEY: KEY });
      const { ms, lines: printed } = await timed(
        line.node,
        kind === 'bare' ? [join(SCRIPTS, 'batch-http.cjs'), url, KEY, file, String(CONCURRENCY)] : args(file),
        env,
      );
      if (printed !== LATENCY_NAMES) throw new Error(`the ${kind} batch on Node ${line.version} printed ${printed} lines, not ${LATENCY_NAMES}`);
      runs.get(line)[kind].push(ms);
      rmSync(fresh, { recursive: true, force: true });
    }
    process.stderr.write(`\rlatency batch ${run + 1}/${BATCH_RUNS}`);
  }
  process.stderr.write('\n');
  return runs;
}

/** Company names of the sandbox's data set (bundled from source), distinct, in a fixed order. */
async function sandboxNames() {
  const { build } = await import('esbuild');
  const outfile = join(temp, 'data.mjs');
  await build({ absWorkingDir: root, entryPoints: ['src/sandbox/data.ts'], bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'error' });
  const { sandboxData } = await import(pathToFileURL(outfile).href);
  return [...new Set(sandboxData().companies.map((company) => company.name))];
}

/** One run with stdout counted, not kept: wall time, lines printed, and peak RSS (/usr/bin/time, else polling VmHWM). */
function timed(node, args, env, { rss = false } = {}) {
  const rssFile = join(temp, 'rss.txt');
  const useTime = rss && existsSync(TIME);
  const started = process.hrtime.bigint();
  const child = useTime ? spawn(TIME, ['-f', '%M', '-o', rssFile, node, ...args], { env }) : spawn(node, args, { env });
  let peakKb = 0;
  const poll = rss && !useTime ? setInterval(() => (peakKb = Math.max(peakKb, vmHwmKb(child.pid))), 10) : undefined;
  let lines = 0;
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    for (const byte of chunk) if (byte === 10) lines++;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      clearInterval(poll);
      if (code !== 0) return reject(new Error(`${args.join(' ')} failed on ${node} (exit ${code}): ${stderr.trim().split('\n')[0]}`));
      if (useTime) peakKb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1));
      resolve({ ms, lines, peakKb });
    });
  });
}

function vmHwmKb(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0; // the process has just exited
  }
}

function shuffled(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)] + sorted[Math.ceil(middle)]) / 2;
}

/** A ratio with its target: `1.14× ✓`; no mark where the line has no target. */
function ratio(value, floor, target) {
  const r = value / floor;
  return `${r.toFixed(2)}×${target === undefined ? '' : r <= target ? ' ✓' : ' ✗'}`;
}

/** The start-up and latency table; a part not run (--only) shows as -. */
function printTable(lines, candidates, times, batches, loadBefore) {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const load = (values) => values.map((n) => n.toFixed(2)).join(' ');
  console.log(`\n${cpus().length} × ${cpu}; load average ${load(loadBefore)} before, ${load(loadavg())} after`);
  console.log(`medians of ${ROUNDS} interleaved rounds (start-up) and ${BATCH_RUNS} runs (batches), loopback server\n`);
  console.log(
    '| Node | `node -e 0` | `rep --version` | GET, node:http | GET, fetch | `rep pulse --json` | audit from the cache | 400 names at 20 ms: bare → rep |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const line of lines) {
    const med = (name) => (times ? median(times[candidates.findIndex((c) => c.line === line && c.name === name)]) : Number.NaN);
    const ms = (value) => `${value.toFixed(0)} ms`;
    const floor = med('node -e 0');
    const http = med('GET node:http');
    const fetch = med('GET fetch');
    const pulse = med('rep pulse --json');
    const newer = line.major >= 22;
    const startup = times
      ? [
          ms(floor),
          `${ms(med('rep --version'))}, ${ratio(med('rep --version'), floor, newer ? 1.25 : 1.3)}`,
          ms(http),
          ms(fetch),
          `${ms(pulse)}, ${ratio(pulse, http, newer ? 1.3 : undefined)} http, ${ratio(pulse, fetch, 1.0)} fetch`,
          `${ms(med('cached audit'))}, ${ratio(med('cached audit'), floor, 1.4)}`,
        ]
      : Array(6).fill('-');
    const s = (values) => `${(median(values) / 1000).toFixed(2)} s`;
    const latency = batches?.get(line);
    console.log(
      [
        line.version,
        ...startup,
        latency
          ? `${s(latency.bare)} → ${s(latency.rep)}, ${ratio(median(latency.rep), median(latency.bare), 1.15)}; first run ${s(latency.first)}, ${ratio(median(latency.first), median(latency.bare))}`
          : '-',
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .concat(' |'),
    );
  }
  console.log('\nTargets (✓ met, ✗ not): `rep --version` ≤ 1.25× `node -e 0` on Node 22+, ≤ 1.3× on 20; `rep pulse --json` ≤ 1.3× the node:http');
  console.log('script on Node 22+ and ≤ 1.0× the fetch script everywhere; an audit from the cache ≤ 1.4× `node -e 0`; 400 names at');
  console.log(`20 ms a request, concurrency ${CONCURRENCY}, ≤ 1.15× the bare node:http keep-alive script (with rep's code cache made`);
  console.log('before the clock, as for start-up; "first run" is on a fresh home, without one).');
}
