// The config file: read with plain fs (fast, and never rewrites a broken file), written with conf
// (atomic, mode 0600) only by `login` and `logout`, in a directory kept at mode 0700.
import { chmodSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { ConfigError } from '../errors.js';
import { ensurePrivateDir, fileForeignness, LocalFileError, readLocalFile } from '../local-file.js';
import { isRecord, parseJson } from '../text.js';

export interface StoredConfig {
  apiKey?: string;
  baseUrl?: string;
  /** A postgres:// URL: the team store (REP_STORE and --store win). */
  store?: string;
  /** Fields rep does not know are kept as they are. */
  [field: string]: unknown;
}

const FIX_HINT = 'fix the file by hand, or delete it and run `rep login` again';
/** A config holds a key and a URL: a file this large is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads the config file; a missing file is an empty config, a broken one a ConfigError naming the
 * path. With `warn`, a file or directory other users can reach is reported (rep's secrets live there).
 */
export function readConfigFile(path: string, warn?: (text: string) => void): StoredConfig {
  let text: string | undefined;
  try {
    text = readLocalFile(path, MAX_CONFIG_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    if (error instanceof LocalFileError) throw new ConfigError(`the config file ${path} ${error.message}`, { hint: FIX_HINT });
    const { what, hint } = configFileProblem(error, 'read');
    throw new ConfigError(`cannot read the config file ${path}: ${what}`, { hint, cause: error });
  }
  if (text === undefined) return {};
  if (warn) for (const problem of looseConfigPermissions(path)) warn(problem);
  return parseConfig(text, path);
}

function parseConfig(text: string, path: string): StoredConfig {
  let data: unknown;
  try {
    data = parseJson(text);
  } catch (error) {
    throw new ConfigError(`the config file ${path} is not valid JSON`, { hint: FIX_HINT, cause: error });
  }
  if (!isRecord(data)) {
    throw new ConfigError(`the config file ${path} does not hold a JSON object`, { hint: FIX_HINT });
  }
  const record = data;
  for (const field of ['apiKey', 'baseUrl'] as const) {
    if (record[field] !== undefined && typeof record[field] !== 'string') {
      throw new ConfigError(`the config file ${path} has a "${field}" that is not a string`, { hint: FIX_HINT });
    }
  }
  return record as StoredConfig;
}

/** Permission problems of the config file and its directory, as warnings (POSIX only). */
export function looseConfigPermissions(path: string): string[] {
  if (process.platform === 'win32') return [];
  const problems: string[] = [];
  for (const [target, kind] of [
    [dirname(path), 'directory'],
    [path, 'file'],
  ] as const) {
    try {
      const mode = statSync(target).mode & 0o777;
      if (mode & 0o077) {
        problems.push(
          `the config ${kind} ${target} is open to other users (mode ${mode.toString(8)}); run: chmod ${kind === 'file' ? '600' : '700'} ${target}`,
        );
      }
    } catch {
      // Missing: nothing to warn about.
    }
  }
  return problems;
}

/**
 * Applies `change` to the stored config and writes it atomically with mode 0600. A broken file is
 * reported, not overwritten: the user may want what is in it.
 */
export async function updateConfigFile(path: string, change: (config: StoredConfig) => StoredConfig): Promise<void> {
  const current = readConfigFile(path);
  const { default: Conf } = await import('conf');
  try {
    ensurePrivateDir(dirname(path));
    // conf writes its temp file with 'w' (no O_EXCL) and through links: only where nothing is another user's.
    const foreign = fileForeignness(path, true);
    if (foreign) throw new ConfigError(`will not write the config file ${path}: ${foreign}`, { hint: ELSEWHERE });
    // clearInvalidConfig: false makes conf throw on a file broken since readConfigFile, not empty it.
    const store = new Conf<StoredConfig>({
      projectName: 'rep',
      cwd: dirname(path),
      configName: basename(path).replace(/\.json$/, ''),
      fileExtension: 'json',
      configFileMode: 0o600,
      clearInvalidConfig: false,
      accessPropertiesByDotNotation: false,
      projectSuffix: '',
    });
    store.store = change({ ...current });
    // An existing file keeps its mode through some write paths (conf under Snap): set it explicitly.
    if (process.platform !== 'win32') chmodSync(path, 0o600);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (error instanceof SyntaxError) throw new ConfigError(`the config file ${path} is not valid JSON`, { hint: FIX_HINT, cause: error });
    const { what, hint } = configFileProblem(error, 'write');
    throw new ConfigError(`cannot write the config file ${path}: ${what}`, { hint, cause: error });
  }
}

const ELSEWHERE = 'set REP_CONFIG_DIR to a directory rep can write to';

/** What an fs error on the config file means, in words, and what to do: it is not always the permissions. */
export function configFileProblem(error: unknown, doing: 'read' | 'write'): { what: string; hint: string } {
  const { code, message } = error as NodeJS.ErrnoException;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return { what: 'permission denied', hint: doing === 'read' ? 'check its permissions' : 'check the permissions of its directory' };
    case 'ENOSPC':
      return { what: 'no space is left on the device', hint: `free some space, or ${ELSEWHERE} on another disk` };
    case 'EDQUOT':
      return { what: 'the disk quota is used up', hint: `free some space, or ${ELSEWHERE} on another disk` };
    case 'EROFS':
      return { what: 'the file system is read-only', hint: ELSEWHERE };
    case 'EISDIR':
      return { what: 'it is a directory', hint: `remove or rename that directory, or ${ELSEWHERE}` };
    case 'ENOTDIR':
      return { what: 'a part of its path is not a directory', hint: ELSEWHERE };
    case 'EIO':
      return { what: 'an input/output error (EIO)', hint: 'the disk may be failing; run again with --debug for details' };
    default:
      return { what: code ?? message, hint: 'run again with --debug for details' };
  }
}
