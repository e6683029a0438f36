// The bench's API server, in a process of its own: answers /api/pulse (no-store, like the sandbox) and
// /api/audit?q=NAME (cacheable) at once, and the same under /slow/api after LATENCY_MS, like a server
// across a network. Fixed small bodies, so the server's own work is the same for every client. Prints
// `base_url=...` when listening. GET /count says how many audits it has answered, so a bench run can
// show that a batch answered from the cache sent nothing. (npm run bench)
import { createServer } from 'node:http';

const LATENCY_MS = 20;
const PULSE = JSON.stringify({ index: 73.34, companies: 2400, updated_at: '2026-11-01T00:00:00Z' });
const SOURCES = [
  { source: 'Google Maps', rating: 4.1, reviews: 1708 },
  { source: 'Tripadvisor', rating: 3.3, reviews: 3620 },
  { source: 'Yelp', rating: 3.6, reviews: 1 },
];
const auditBody = (name) =>
  JSON.stringify({
    company: { id: 'c-00002', name, city: 'San Francisco', category: 'Coffee shop' },
    score: 62.9,
    score_scale: 100,
    sources: SOURCES,
    reviews_total: 5329,
    updated_at: '2026-11-01T00:00:00Z',
  });

let audits = 0;
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const slow = url.pathname.startsWith('/slow/');
  const route = slow ? url.pathname.slice('/slow'.length) : url.pathname;
  const send = (status, body, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };
  const reply = () => {
    if (route === '/count') return send(200, JSON.stringify({ audits }));
    if (route === '/api/audit') audits++;
    if (route === '/api/pulse') send(200, PULSE, { 'cache-control': 'no-store' });
    else if (route === '/api/audit' && url.searchParams.get('q')) send(200, auditBody(url.searchParams.get('q')));
    else send(404, JSON.stringify({ error: { code: 'not_found', message: `No endpoint at ${url.pathname}` } }));
  };
  if (slow) setTimeout(reply, LATENCY_MS);
  else reply();
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`base_url=http://127.0.0.1:${server.address().port}/api\n`));
process.on('SIGTERM', () => process.exit(0));
