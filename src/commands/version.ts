// `rep version`: rep's version, Node's and the platform, as `gh version` prints them (for bug reports).
import type { Deps } from '../deps.js';
import { jsonDocument } from '../output/json-colour.js';
import { VERSION } from '../version.js';

export type VersionOptions = Record<string, never>;

export async function run(_opts: VersionOptions, deps: Deps): Promise<void> {
  const facts = { version: VERSION, node: process.version, platform: `${process.platform}-${process.arch}` };
  // Text unless JSON is asked for by name: a version is read by people far more often than by jq.
  if (deps.globals.json || deps.globals.format === 'json') deps.io.out(jsonDocument(deps.io, facts));
  else deps.io.out(`rep ${facts.version} (node ${facts.node}, ${facts.platform})\n`);
}
