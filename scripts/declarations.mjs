// The library's type declarations (package.json `types`): tsc emits .d.ts files for src/index.ts and
// what it imports (tsconfig.build.json; `@internal` members stripped), and only the files the entry
// reaches are shipped. They must name nothing the package does not carry: no undici, no Node typings.
// Each .d.ts has a .d.cts twin for the `require` condition: in a package of "type": "module" a .d.ts
// types an ES module, which a CommonJS project under node16 resolution may not import (TS1479).
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

// Required, not imported: Node's import of a CommonJS module first scans all its source for the names it
// exports, and TypeScript's is megabytes (that scan cost more CPU than the require itself). And only
// when declarations are asked for: a build without them (`--no-types`) loads no TypeScript at all.
const typescript = () => createRequire(import.meta.url)('typescript');

const NOT_CARRIED = /\bfrom\s+["'](?!\.)|\bimport\(\s*["'](?!\.)|<reference\s+types=|\bNodeJS\.|\bundici\b/;

/** The .d.ts files of the library entry, as { path, text } to write, after checking each. */
export function libraryDeclarations(root) {
  const ts = typescript();
  const configPath = join(root, 'tsconfig.build.json');
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath);
  // noCheck: emit only, no checking of every body (`tsc --noEmit` in `npm test` does that): the same
  // files, byte for byte, in half the time; emit never reported a type error anyway.
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noCheck: true } });
  const emitted = new Map();
  const { diagnostics } = program.emit(undefined, (path, text) => emitted.set(resolve(path), text), undefined, true);
  if (diagnostics.length > 0)
    throw new Error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' }));

  const entry = resolve(root, 'dist', 'index.d.ts');
  const shipped = [];
  const seen = new Set();
  for (const queue = [entry]; queue.length > 0; ) {
    const path = queue.pop();
    if (seen.has(path)) continue;
    seen.add(path);
    const text = emitted.get(path);
    if (text === undefined) throw new Error(`${relative(root, path)} is imported by the library's types but was not emitted`);
    const bad = NOT_CARRIED.exec(text);
    if (bad) throw new Error(`${relative(root, path)} refers to something the package does not carry (${bad[0]}): keep it out of the library's types`);
    shipped.push({ path, text });
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s+|\bimport\(\s*)["'](\.[^"']+)["']/g))
      queue.push(resolve(dirname(path), specifier.replace(/\.js$/, '.d.ts')));
  }
  return [...shipped, ...shipped.map(({ path, text }) => ({ path: path.replace(/\.d\.ts$/, '.d.cts'), text: commonJsTwin(text) }))];
}

/** A .d.ts's text for its .d.cts twin: its relative imports name the twins (`./x.cjs` types as `./x.d.cts`). */
function commonJsTwin(text) {
  return text.replace(/(\bfrom\s+|\bimport\(\s*)(["'])(\.[^"']+)\.js\2/g, '$1$2$3.cjs$2');
}
