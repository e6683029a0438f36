// `rep __complete history-names [word [bash]]`: the names recorded in the history, one a line, for the
// completion scripts of `rep audit` and `rep history`. cli.ts answers it before the command-line
// parser loads: no request, no config file, no table library, so a Tab press stays instant.
import { historyPlace, repPaths } from '../config/paths.js';
import { bashCompletionWord, shellUnquote } from '../shell-quote.js';
import { openLocalHistory } from '../store/local/history.js';
import { prepareHistoryDir } from '../store/local/migrate.js';
import { nameKey } from '../store/policy.js';
import { scrubLine } from '../text.js';

/**
 * `word` is the word being completed as the shell hands it over, quotes and backslashes as typed.
 * zsh and fish quote what they insert; for bash (`bash` after the word) each name comes quoted.
 */
export async function completeWords(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const [what, typed = '', shell] = args;
  if (what !== 'history-names') return '';
  const names = (await historyNames(env, shellUnquote(typed))).filter(offerable);
  return names.map((name) => `${shell === 'bash' ? bashCompletionWord(typed, name) : name}\n`).join('');
}

/**
 * Never a name the shell would read as an option (a recorded `--base-url=…` would send the key
 * elsewhere), nor one with line breaks, escapes or bidi marks, nor a blank one.
 */
function offerable(name: string): boolean {
  const word = name.trim();
  return word !== '' && !word.startsWith('-') && scrubLine(name) === name;
}

/** The recorded names starting with `prefix` (the history's index only, no series read); none when it cannot be read. */
async function historyNames(env: NodeJS.ProcessEnv, prefix: string): Promise<string[]> {
  const { historyDir, legacyHistoryFile } = historyPlace(env, repPaths(env).stateDir);
  try {
    return await openLocalHistory(historyDir, { prepare: () => prepareHistoryDir(historyDir, legacyHistoryFile) }).names(nameKey(prefix));
  } catch {
    return [];
  }
}
