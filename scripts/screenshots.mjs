#!/usr/bin/env node
// Makes docs/report.png and docs/chart.png with the commands the tests run: `rep report` and
// `rep history NAME --chart` (on a pseudo-terminal, 100 columns) over the deterministic history of
// scripts/trend-fixture.mjs, each photographed by headless Chromium. Needs `npm run build`, chromium, script.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyLines, trendPoints } from './trend-fixture.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const rep = join(root, 'bin', 'rep.cjs');
const dir = mkdtempSync(join(tmpdir(), 'rep-screenshots-'));
const env = {
  PATH: process.env.PATH,
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, 'config'),
  XDG_STATE_HOME: join(dir, 'state'),
  XDG_CACHE_HOME: join(dir, 'cache'),
  REP_HISTORY_FILE: join(dir, 'history.jsonl'),
  REP_BASE_URL: 'https://api.example.com/api',
};
writeFileSync(env.REP_HISTORY_FILE, historyLines(trendPoints({ days: 90, baseUrl: env.REP_BASE_URL })));

function photograph(file, png, size) {
  const flags = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ];
  execFileSync(
    'chromium',
    [...flags, `--user-data-dir=${join(dir, 'profile')}`, '--hide-scrollbars', `--window-size=${size}`, `--screenshot=${png}`, `file://${file}`],
    {
      stdio: 'ignore',
    },
  );
}

try {
  const report = join(dir, 'report.html');
  writeFileSync(report, execFileSync(process.execPath, [rep, 'report'], { env }));
  photograph(report, join(root, 'docs', 'report.png'), '1100,1300');

  const command = `stty cols 100 rows 40 && '${process.execPath}' '${rep}' history 'Blue Bottle Coffee' --chart`;
  const terminal = execFileSync('script', ['-qfec', command, '/dev/null'], {
    env: { ...env, LANG: 'C.UTF-8', TERM: 'xterm-256color', FORCE_COLOR: '1' },
  }).toString();
  const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const colours = { 36: '#56b6c2', 90: '#7f848e' };
  const html = escapeHtml(`$ rep history "Blue Bottle Coffee" --chart\n${terminal.replace(/\r/g, '')}`).replace(
    /\u001b\[(\d+)m([^\u001b]*)\u001b\[39m/g,
    (_, code, text) => `<span style="color:${colours[code] ?? 'inherit'}">${text}</span>`,
  );
  const page = join(dir, 'chart.html');
  writeFileSync(
    page,
    `<!DOCTYPE html><meta charset="utf-8"><body style="margin:0;background:#282c34"><pre style="margin:0;padding:16px;color:#dcdfe4;font:14px/1.25 'DejaVu Sans Mono',monospace">${html}</pre>`,
  );
  photograph(page, join(root, 'docs', 'chart.png'), '900,330');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
