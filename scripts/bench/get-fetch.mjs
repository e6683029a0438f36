// What a script with Node's built-in fetch pays for one GET of /pulse. (npm run bench)
const [url, key] = process.argv.slice(2);
const response = await fetch(`${url}/pulse`, { headers: { authorization: `Bearer ${key}` } });
process.stdout.write(`${await response.text()}\n`);
