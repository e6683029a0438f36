// What a lean batch that keeps what rep keeps would cost, by layout (issue 31, the fresh row; see
// docs/performance.md, "What the layout costs"). batch-http.cjs's loop, and for each answer: a small
// view, a history point, an answer entry and a request line, kept in one of two layouts:
//   journal   each kind appended once a turn to one file of its own (no file a name);
//   files     rep's layout: a series file a name (open, append, close), an answer entry a name
//             (made in place, or, when one is there, a temporary file renamed over it), the request
//             lines once a turn. Run it twice on the same folder for a day-two batch.
// Not rep: no checks, no locks, no error handling. A floor, like batch-http.cjs; CommonJS like it.
//   node scripts/bench/batch-floor.cjs URL KEY NAMES CONCURRENCY journal|files DIR > /dev/null
const { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } = require('node:fs');
const { Agent, request } = require('node:http');
const { createHash } = require('node:crypto');
const { join } = require('node:path');

const [url, key, file, concurrency, layout, dir] = process.argv.slice(2);
if (layout !== 'journal' && layout !== 'files') throw new Error('layout: journal or files');
for (const folder of ['series', 'answers']) mkdirSync(join(dir, folder), { recursive: true });
const names = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const headers = { authorization: `Bearer ${key}` };

const logs = { ledger: openSync(join(dir, 'requests.log'), 'a', 0o600) };
if (layout === 'journal') {
  logs.points = openSync(join(dir, 'points.jsonl'), 'a', 0o600);
  logs.answers = openSync(join(dir, 'answers.jsonl'), 'a', 0o600);
}
const turn = { ledger: [], points: [], answers: [], out: [] };
let flushing = false;
const flush = () => {
  flushing = false;
  for (const kind of ['ledger', 'points', 'answers']) {
    if (turn[kind].length > 0) writeSync(logs[kind], turn[kind].join(''));
    turn[kind] = [];
  }
  if (turn.out.length > 0) process.stdout.write(turn.out.join(''));
  turn.out = [];
};
const inTurn = (kind, line) => {
  turn[kind].push(line);
  if (!flushing) setImmediate(flush);
  flushing = true;
};

const sha = (text) => createHash('sha256').update(text).digest('hex');
const append = (path, text) => {
  const fd = openSync(path, 'a', 0o600);
  writeSync(fd, text);
  closeSync(fd);
};
const keep = (path, text) => {
  let fd;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch {
    const temp = join(dir, 'answers', `.${process.pid}.${Math.random().toString(16).slice(2)}.tmp`);
    append(temp, text);
    return renameSync(temp, path);
  }
  writeSync(fd, text);
  closeSync(fd);
};

const audit = (name) =>
  new Promise((resolve, reject) => {
    inTurn('ledger', `${Date.now()} ${sha(key).slice(0, 16)}\n`);
    const req = request(`${url}/audit?q=${encodeURIComponent(name)}`, { agent, headers }, (response) => {
      let body = '';
      response
        .setEncoding('utf8')
        .on('data', (chunk) => (body += chunk))
        .on('end', () => resolve(body));
    });
    req.on('error', reject).end();
  });

function kept(name, text) {
  const body = JSON.parse(text);
  const sources = Array.isArray(body.sources) ? body.sources.map((s) => ({ source: String(s.source), rating: s.rating, reviews: s.reviews })) : [];
  const at = new Date().toISOString();
  const id = sha(`${url}\n${name}\n${at}`).slice(0, 32);
  const point = `${JSON.stringify({ id, at, score: typeof body.score === 'number' ? body.score : null, query: name, base_url: url, sources })}\n`;
  const entry = `${JSON.stringify({ url, query: name, at, body: text })}\n`;
  const series = sha(`${url}\n${name.toLowerCase()}`);
  if (layout === 'journal') {
    inTurn('points', point);
    inTurn('answers', entry);
  } else {
    append(join(dir, 'series', `${series.slice(0, 32)}.jsonl`), point);
    keep(join(dir, 'answers', `${sha(`${url}\naudit\n${name}`)}.answer`), entry);
  }
  inTurn('out', `${JSON.stringify({ query: name, result: body })}\n`);
}

let next = 0;
async function worker() {
  while (next < names.length) {
    const name = names[next++];
    kept(name, await audit(name));
  }
}
Promise.all(Array.from({ length: Number(concurrency) }, worker)).then(() => {
  flush();
  agent.destroy();
});
