// `npm run bench`: what rep costs on this machine, next to Node's own floor. Interleaved rounds (each
// round runs every candidate once, in a fresh shuffled order) so load from elsewhere on the machine
// hits all candidates alike; prints medians and ratios as Markdown. Not part of `npm test`.
//   node scripts/bench.mjs [--rounds 30] [--batch 10000] [--batch-runs 3]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const REP = join(root, 'bin', 'rep.js');
const NODE = process.execPath;
const TIME = '/usr/bin/time';
const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '30' }, batch: { type: 'string', default: '10000' }, 'batch-runs': { type: 'string', default: '3' } },
});
const ROUNDS = Number(flags.rounds);
const BATCH_NAMES = Number(flags.batch);
const BATCH_RUNS = Number(flags['batch-runs']);

const FETCH_SCRIPT = `const [url, key] = process.argv.slice(2);
const response = await fetch(url + '/pulse', { headers: { authorization: 'Bearer ' + key } });
process.stdout.write((await response.text()) + '\\n');
`;
const HTTP_SCRIPT = `import { request } from 'node:http';
const [url, key] = process.argv.slice(2);
request(url + '/pulse', { headers: { authorization: 'Bearer ' + key } }, (response) => {
  let body = '';
  response.setEncoding('utf8').on('data', (chunk) => (body += chunk)).on('end', () => process.stdout.write(body + '\\n'));
}).end();
`;

const temp = mkdtempSync(join(tmpdir(), 'rep-bench-'));
let sandbox;
const cleanup = () => {
  sandbox?.kill('SIGINT');
  sandbox = undefined;
  rmSync(temp, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

try {
  const { url, key } = await startSandbox();
  const env = isolatedEnv({ REP_BASE_URL: url, REP_API_KEY: key });
  writeFileSync(join(temp, 'get-fetch.mjs'), FETCH_SCRIPT);
  writeFileSync(join(temp, 'get-http.mjs'), HTTP_SCRIPT);
  const candidates = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'rep --version', args: [REP, '--version'] },
    { name: 'GET with node:http', args: [join(temp, 'get-http.mjs'), url, key], body: true },
    { name: 'GET with fetch', args: [join(temp, 'get-fetch.mjs'), url, key], body: true },
    { name: 'rep pulse --json', args: [REP, 'pulse', '--json'], body: true },
  ];
  for (const candidate of candidates) check(candidate, env);
  const times = runRounds(candidates, env);
  printHeader();
  printStartup(candidates, times);
  printBatch(await benchBatch(env));
} finally {
  cleanup();
}

/** `rep sandbox` in its own process (a sandbox in this one could not answer while spawnSync blocks). */
function startSandbox() {
  return new Promise((resolve, reject) => {
    sandbox = spawn(NODE, [REP, 'sandbox', '--port', '0', '--limit', '100000000', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'], env: isolatedEnv({}) });
    let out = '';
    sandbox.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const url = /^base_url=(.+)$/m.exec(out)?.[1];
      const key = /^api_key=(.+)$/m.exec(out)?.[1];
      if (url && key) resolve({ url, key });
    });
    sandbox.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before printing its URL`)));
  });
}

/** The caller's environment with a throwaway home and no proxy, so every run reads and writes alike. */
function isolatedEnv(extra) {
  const env = { ...process.env };
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'NODE_OPTIONS', 'REP_CONFIG_DIR']) delete env[name];
  const home = join(temp, 'home');
  mkdirSync(home, { recursive: true });
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), XDG_CACHE_HOME: join(home, 'cache'), ...extra };
}

/** One run outside the clock: the candidate must work, and a GET must print the pulse. */
function check(candidate, env) {
  const result = spawnSync(NODE, candidate.args, { env, encoding: 'utf8' });
  if (result.status !== 0 || (candidate.body && !result.stdout.includes('"index"'))) {
    throw new Error(`${candidate.name} failed (exit ${result.status}): ${result.stderr.trim() || result.stdout.trim()}`);
  }
}

function runRounds(candidates, env) {
  const times = candidates.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of shuffled(candidates.map((_, i) => i))) {
      const started = process.hrtime.bigint();
      const result = spawnSync(NODE, candidates[index].args, { env, stdio: 'ignore' });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`${candidates[index].name} failed in round ${round + 1} (exit ${result.status})`);
      times[index].push(ms);
    }
    process.stderr.write(`\rround ${round + 1}/${ROUNDS}`);
  }
  process.stderr.write('\n');
  return times;
}

function shuffled(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
}
function median(values) {
  return quantile(values, 0.5);
}

function printHeader() {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  console.log(
    `\nNode ${process.version}, ${cpus().length} × ${cpu}, load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}; ${ROUNDS} interleaved rounds\n`,
  );
}

function printStartup(candidates, times) {
  const med = Object.fromEntries(candidates.map((c, i) => [c.name, median(times[i])]));
  console.log('| command | median | p25–p75 |');
  console.log('| --- | ---: | ---: |');
  for (const [i, c] of candidates.entries()) {
    console.log(`| \`${c.name}\` | ${med[c.name].toFixed(0)} ms | ${quantile(times[i], 0.25).toFixed(0)}–${quantile(times[i], 0.75).toFixed(0)} ms |`);
  }
  const ratio = (a, b) => `| \`${a}\` / \`${b}\` | ${(med[a] / med[b]).toFixed(2)}× |`;
  console.log('\n| ratio of medians | |\n| --- | ---: |');
  console.log(ratio('rep --version', 'node -e 0'));
  console.log(ratio('rep pulse --json', 'GET with fetch'));
  console.log(ratio('rep pulse --json', 'GET with node:http'));
}

/** A batch of names from the sandbox's own data set: wall time and peak memory of `rep audit --file`. */
async function benchBatch(env) {
  const names = await sandboxNames();
  const probe = join(temp, 'probe.txt');
  writeFileSync(probe, `${names[0]}\n${names[1]}\n`);
  const tried = spawnSync(NODE, [REP, 'audit', '--file', probe, '--format', 'ndjson'], { env, encoding: 'utf8' });
  if (tried.status !== 0 || tried.stdout.trim().split('\n').length !== 2) {
    return { unavailable: `rep audit --file exited ${tried.status}: ${tried.stderr.split('\n')[0]}` };
  }
  const file = join(temp, 'names.txt');
  const random = lcg(2026);
  writeFileSync(file, `${Array.from({ length: BATCH_NAMES }, () => names[Math.floor(random() * names.length)]).join('\n')}\n`);
  const runs = [];
  for (let run = 0; run < BATCH_RUNS; run++) runs.push(await timedBatch(file, env));
  return { runs };
}

/** Company names of the built-in data set (bundled from source, so the bench reads what the sandbox serves). */
async function sandboxNames() {
  const { build } = await import('esbuild');
  const outfile = join(temp, 'data.mjs');
  await build({ absWorkingDir: root, entryPoints: ['src/sandbox/data.ts'], bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'error' });
  const { sandboxData } = await import(pathToFileURL(outfile).href);
  return sandboxData().companies.map((company) => company.name);
}

function lcg(seed) {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** One batch run, stdout to /dev/null; peak RSS from /usr/bin/time, else from polling VmHWM. */
function timedBatch(file, env) {
  const args = [REP, 'audit', '--file', file, '--format', 'ndjson'];
  const rssFile = join(temp, 'rss.txt');
  const useTime = existsSync(TIME);
  const devNull = openSync('/dev/null', 'w');
  const started = process.hrtime.bigint();
  const child = useTime
    ? spawn(TIME, ['-f', '%M', '-o', rssFile, NODE, ...args], { env, stdio: ['ignore', devNull, 'pipe'] })
    : spawn(NODE, args, { env, stdio: ['ignore', devNull, 'pipe'] });
  let peakKb = 0;
  const poll = useTime ? undefined : setInterval(() => (peakKb = Math.max(peakKb, vmHwmKb(child.pid))), 10);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      clearInterval(poll);
      closeSync(devNull);
      if (code !== 0) return reject(new Error(`the batch failed (exit ${code}): ${stderr.trim().split('\n')[0]}`));
      if (useTime) peakKb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1));
      resolve({ ms, peakKb });
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

function printBatch(batch) {
  if (batch.unavailable) {
    console.log(`\nbatch: not available (${batch.unavailable})`);
    return;
  }
  const ms = median(batch.runs.map((run) => run.ms));
  const mb = median(batch.runs.map((run) => run.peakKb)) / 1024;
  console.log(`\n| batch (\`rep audit --file names.txt --format ndjson > /dev/null\`) | median of ${batch.runs.length} |`);
  console.log('| --- | ---: |');
  console.log(`| ${BATCH_NAMES} names, wall time | ${(ms / 1000).toFixed(2)} s (${Math.round(BATCH_NAMES / (ms / 1000))} names/s) |`);
  console.log(`| peak RSS | ${mb.toFixed(0)} MB |`);
}
