// The floor of a batch: one GET of /audit per line of a file over node:http keep-alive sockets, CONCURRENCY
// in flight, each answer parsed and printed as one NDJSON line. (npm run bench; CommonJS like get-http.cjs)
const { readFileSync } = require('node:fs');
const { Agent, request } = require('node:http');

const [url, key, file, concurrency] = process.argv.slice(2);
const names = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const headers = { authorization: `Bearer ${key}` };

const audit = (name) =>
  new Promise((resolve, reject) => {
    const req = request(`${url}/audit?q=${encodeURIComponent(name)}`, { agent, headers }, (response) => {
      let body = '';
      response
        .setEncoding('utf8')
        .on('data', (chunk) => (body += chunk))
        .on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject).end();
  });

let next = 0;
async function worker() {
  while (next < names.length) process.stdout.write(`${JSON.stringify(await audit(names[next++]))}\n`);
}
Promise.all(Array.from({ length: Number(concurrency) }, worker)).then(() => agent.destroy());
