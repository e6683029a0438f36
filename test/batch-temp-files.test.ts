// A batch keeps two temporary files in TMPDIR: the names its quota plan read ahead (batch/name-spill.ts)
// and the answers its duplicate names reuse (batch/dedupe.ts). A TMPDIR that is full, too small or not
// there must not end the run with a stack trace, lose a name, or send a duplicate again: the batch says
// so in one warning and keeps them in memory. The process is the point here (its file-size limit,
// `ulimit -f`, makes every write past it fail with EFBIG), so rep runs as a child.
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditBody, serveCompanyAudits } from './helpers/companies.js';
import { REP_BIN, useRep } from './helpers/cli.js';

const fixture = useRep();

/** 1,200 distinct names, then the same again: the plan spills past 2,048 names, the dedupe past 1,024 answers. */
const names = Array.from({ length: 1200 }, (_, i) => `Company ${i + 1}`);
const input = [...names, ...names];

/** `rep …args` as a child whose writes fail past `kilobytes` KiB a file, with TMPDIR at `tmp`. */
async function batchWithin(kilobytes: number, tmp: string) {
  const server = await fixture.server();
  const audits = serveCompanyAudits(server, { companies: names });
  const home = fixture.home();
  const file = join(home.dir, 'names.txt');
  writeFileSync(file, `${input.join('\n')}\n`);
  const bin = join(home.dir, 'rep-limited');
  writeFileSync(bin, `#!/bin/sh\nulimit -f ${kilobytes}\nexec '${process.execPath}' '${REP_BIN}' "$@"\n`);
  chmodSync(bin, 0o755);
  const result = await fixture.spawn(['--format', 'ndjson', '--no-cache', 'audit', '--file', file], {
    bin,
    env: { REP_API_KEY: 'k', REP_BASE_URL: server.baseUrl.href, TMPDIR: tmp },
  });
  return { ...result, sent: audits.received() };
}

/** What the run must still do: every record, in input order, and each name asked once. */
function expectWhole(result: { code: number | null; stdout: string; stderr: string; sent: string[] }) {
  expect(result.stderr).not.toMatch(/^\s+at /m); // no stack trace
  expect(result.code).toBe(0);
  const records = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { query: string; result: unknown });
  expect(records.map((record) => record.query)).toEqual(input);
  expect(records.every((record) => JSON.stringify(record.result) === JSON.stringify(auditBody(record.query)))).toBe(true);
  expect(result.sent.toSorted()).toEqual(names.toSorted());
}

describe('a batch whose temporary files cannot be written', () => {
  it('a file-size limit (EFBIG, as a full disk): one warning, every record, no name sent twice', async () => {
    const tmp = join(fixture.home().dir, 'tmp');
    mkdirSync(tmp);
    const result = await batchWithin(4, tmp);
    expectWhole(result);
    expect(result.stderr).toMatch(
      new RegExp(`^rep: warning: cannot write the batch's temporary files in ${tmp} \\([a-z ]+\\); the batch keeps them in memory$`, 'm'),
    );
    expect(result.stderr.match(/temporary files/g)).toHaveLength(1);
    expect(readdirSync(tmp)).toEqual([]); // what it made is removed
  });

  it('a TMPDIR that is not there: the same', async () => {
    const tmp = join(fixture.home().dir, 'no-such-folder');
    const result = await batchWithin(1024 * 1024, tmp);
    expectWhole(result);
    expect(result.stderr).toMatch(
      new RegExp(`^rep: warning: cannot write the batch's temporary files in ${tmp} \\([a-z ]+\\); the batch keeps them in memory$`, 'm'),
    );
    expect(result.stderr.match(/temporary files/g)).toHaveLength(1);
  });
});
