// The issue-31 batch rows of `npm run bench` (also alone: `node scripts/bench.mjs --only batch`), on the
// zero-latency server: the bare keep-alive loop next to rep on N distinct names, fresh then again from the
// cache (the server's /count shows what the re-run sent), and peak RSS of a 100,000-name run next to a
// 1,000-name one. Each rep run of a kind on a home of its own; medians of `runs`. Beside the fresh run,
// batch-floor.cjs: a lean client that keeps what rep keeps, in journals and in rep's file-a-name layout.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY = 'rk_bench_0123456789';

/** Rows per line: { bare, journal, files, fresh, cached, sentAgain, small, large, bareLarge } (ms, peakKb). */
export async function bigBatchRows({ lines, url, temp, rep, scripts, concurrency, runs, names, largeNames, timed, isolatedEnv, median, shuffled }) {
  const file = (count) => {
    const path = join(temp, `distinct-${count}.txt`);
    writeFileSync(path, `${Array.from({ length: count }, (_, i) => `Bench Company ${i + 1}`).join('\n')}\n`);
    return path;
  };
  const files = { names: file(names), small: file(1000), large: largeNames > 0 ? file(largeNames) : undefined };
  const audits = async () => (await (await fetch(`${url.replace(/\/api$/, '')}/count`)).json()).audits;
  const repArgs = (path) => [rep, 'audit', '--file', path, '--format', 'ndjson'];
  const rows = new Map(
    lines.map((line) => [line, { bare: [], journal: [], files: [], fresh: [], cached: [], sentAgain: [], small: [], large: [], bareLarge: [] }]),
  );
  const expect = (what, printed, count) => {
    if (printed !== count) throw new Error(`${what} printed ${printed} lines, not ${count}`);
  };
  for (let run = 0; run < runs; run++) {
    for (const line of shuffled([...lines])) {
      const row = rows.get(line);
      const home = `big-${line.major}-${run}`;
      const env = isolatedEnv(home, { REP_BASE_URL: url, REP_API_KEY: KEY, REP_MAX_AGE: '24h' });
      const bare = await timed(line.node, [join(scripts, 'batch-http.cjs'), url, KEY, files.names, String(concurrency)], env);
      expect('the bare loop', bare.lines, names);
      row.bare.push(bare.ms);
      for (const layout of ['journal', 'files']) {
        const floor = [join(scripts, 'batch-floor.cjs'), url, KEY, files.names, String(concurrency), layout, join(temp, home, `floor-${layout}`)];
        const kept = await timed(line.node, floor, env);
        expect(`the lean client (${layout})`, kept.lines, names);
        row[layout].push(kept.ms);
      }
      const fresh = await timed(line.node, repArgs(files.names), env, { rss: true });
      expect('rep (fresh)', fresh.lines, names);
      row.fresh.push(fresh.ms);
      const before = await audits();
      const cached = await timed(line.node, repArgs(files.names), env, { rss: true });
      expect('rep (cached)', cached.lines, names);
      row.cached.push(cached.ms);
      row.sentAgain.push((await audits()) - before);
      rmSync(join(temp, home), { recursive: true, force: true });
      const smallEnv = isolatedEnv(`${home}-small`, { REP_BASE_URL: url, REP_API_KEY: KEY });
      row.small.push((await timed(line.node, repArgs(files.small), smallEnv, { rss: true })).peakKb);
      rmSync(join(temp, `${home}-small`), { recursive: true, force: true });
      process.stderr.write(`\rbatch rows on Node ${line.version}, run ${run + 1}/${runs}   `);
    }
  }
  // The large run once per line: it is long, and peak RSS varies little from run to run.
  if (files.large) {
    for (const line of lines) {
      const row = rows.get(line);
      const env = isolatedEnv(`large-${line.major}`, { REP_BASE_URL: url, REP_API_KEY: KEY });
      const bare = await timed(line.node, [join(scripts, 'batch-http.cjs'), url, KEY, files.large, String(concurrency)], env, { rss: true });
      row.bareLarge.push(bare);
      const large = await timed(line.node, repArgs(files.large), env, { rss: true });
      expect('rep (large)', large.lines, largeNames);
      row.large.push(large);
      rmSync(join(temp, `large-${line.major}`), { recursive: true, force: true });
      process.stderr.write(`\r${largeNames}-name run on Node ${line.version} done   `);
    }
  }
  process.stderr.write('\n');
  return { rows, names, largeNames, median };
}

/** The rows as a Markdown table, each target marked ✓ or ✗. */
export function printBigBatchRows({ rows, names, largeNames, median }, lines) {
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
  const mark = (r, target) => `${r.toFixed(2)}× ${r <= target ? '✓' : '✗'}`;
  console.log(
    `\n| Node | ${names} names, bare loop | a lean client keeping all: journals, a file a name | rep, fresh (≤ 2.0×) | rep, again from the cache (≤ 1.0×) | requests the re-run sent | 1,000 names: peak RSS | ${largeNames} names: rep wall, bare wall | peak RSS vs 1,000 (≤ 1.3×) |`,
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const line of lines) {
    const row = rows.get(line);
    const bare = median(row.bare);
    const fresh = median(row.fresh);
    const cached = median(row.cached);
    const small = median(row.small);
    const large = row.large[0];
    const cells = [
      line.version,
      s(bare),
      ['journal', 'files'].map((layout) => `${s(median(row[layout]))}, ${(median(row[layout]) / bare).toFixed(2)}×`).join('; '),
      `${s(fresh)}, ${mark(fresh / bare, 2.0)}`,
      `${s(cached)}, ${mark(cached / bare, 1.0)}`,
      String(Math.max(...row.sentAgain)),
      mb(small),
      large ? `${s(large.ms)}, ${s(row.bareLarge[0].ms)} (bare ${mb(row.bareLarge[0].peakKb)})` : '-',
      large ? `${mb(large.peakKb)}, ${mark(large.peakKb / small, 1.3)}` : '-',
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}
