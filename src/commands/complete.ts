// `rep __complete history-names [prefix]`: the names recorded in the history, one a line, for the
// completion scripts of `rep audit` and `rep history`. cli.ts answers it before the command-line
// parser loads: no request, no config file, no table library, so a Tab press stays instant.
import { repPaths } from '../config/paths.js';
import { historyFile, historyNames } from '../state/history.js';

export function completeWords(args: readonly string[], env: NodeJS.ProcessEnv): string {
  if (args[0] !== 'history-names') return '';
  const names = historyNames(historyFile(env, repPaths(env).stateDir), args[1] ?? '');
  // A name is one line of the answer: one with a line break in it cannot be offered whole.
  return names
    .filter((name) => !/[\r\n]/.test(name))
    .map((name) => `${name}\n`)
    .join('');
}
