// The licence notices of every package esbuild bundled into dist/, read from each package's own licence
// files: their licences (MIT, ISC, BSD) ask that the notice travel with the code, and the tarball ships
// no node_modules to carry it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LICENCE_FILE = /^(licen[cs]e|copying|notice)([-._].*)?$/i;
const RULE = '='.repeat(78);
/** Notices of packages whose tarball ships no licence file, as their licence field names it. */
const BY_HAND = {
  // Postgres.js is released to the public domain (its repository's UNLICENSE); no notice is required, one is kept.
  postgres: 'This is free and unencumbered software released into the public domain (The Unlicense, https://unlicense.org).',
};

/**
 * The bundled packages' directories, from the metafile's inputs (paths relative to root), one per
 * package version: the innermost node_modules/<name> or node_modules/@scope/<name> of each input.
 */
export function bundledPackageDirs(metafile, root) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(join(root, input).replaceAll('\\', '/'));
    if (match) dirs.add(match[1]);
  }
  return [...dirs];
}

/** The name@version of the package in dir, from its package.json. */
export function packageId(dir) {
  const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return `${name}@${version}`;
}

/** The notices text: for each package, sorted by name, its name, version, licence and licence files. */
export function thirdPartyNotices(packageDirs) {
  const sections = packageDirs.map((dir) => {
    const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const files = readdirSync(dir)
      .filter((file) => LICENCE_FILE.test(file))
      .sort();
    if (files.length === 0 && BY_HAND[name])
      return { key: `${name}@${version}`, text: [RULE, `${name} ${version} (${license})`, RULE, '', BY_HAND[name], ''].join('\n') };
    if (files.length === 0) throw new Error(`${name}@${version} ships no licence file: add its notice by hand in scripts/third-party-notices.mjs`);
    const texts = files.map((file) => readFileSync(join(dir, file), 'utf8').trim());
    return {
      key: `${name}@${version}`,
      text: [RULE, `${name} ${version} (${license ?? 'licence in the text below'})`, RULE, '', ...texts.join('\n\n').split('\n'), ''].join('\n'),
    };
  });
  sections.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const head = [
    'Third-party software bundled into rep-cli',
    '',
    `dist/ bundles the ${sections.length} packages below (esbuild); each is listed with the licence it ships.`,
    'Notices that bundled files carry in their own comments stay at the end of the chunk that holds them.',
    '',
  ];
  return `${[...head, ...sections.map((section) => section.text)].join('\n')}`;
}
