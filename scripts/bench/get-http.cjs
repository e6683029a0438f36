// The floor of a Node client: one GET of /pulse with node:http, printed. (npm run bench) CommonJS, as
// `import` of node:http would also load Node's own undici on Node 22+ (its WebSocket export), a cost
// that is not the floor's.
const { request } = require('node:http');

const [url, key] = process.argv.slice(2);
request(`${url}/pulse`, { headers: { authorization: `Bearer ${key}` } }, (response) => {
  let body = '';
  response
    .setEncoding('utf8')
    .on('data', (chunk) => (body += chunk))
    .on('end', () => process.stdout.write(`${body}\n`));
}).end();
