// The floor of a Node client: one GET of /pulse with node:http, printed. (npm run bench)
import { request } from 'node:http';

const [url, key] = process.argv.slice(2);
request(`${url}/pulse`, { headers: { authorization: `Bearer ${key}` } }, (response) => {
  let body = '';
  response.setEncoding('utf8').on('data', (chunk) => (body += chunk)).on('end', () => process.stdout.write(`${body}\n`));
}).end();
