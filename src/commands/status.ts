// `rep status`: where rep would send requests, with which key (masked), and how many it sent lately.
// Exits 4 when no key is set, after showing the rest.
import type { Deps } from '../deps.js';
import { AuthError, systemErrorText } from '../errors.js';
import { csvBom } from '../output/csv.js';
import { writeStatus } from '../output/status.js';
import type { RequestStatus } from '../state/requests.js';
import { statusView } from '../views/status.js';

/** status takes no options of its own. */
export type StatusOptions = Record<string, never>;

export async function run(_opts: StatusOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const usage = settings.keySource === 'sandbox' ? undefined : await requestStatus(deps, settings.key ?? '');
  const cache = await (await import('./cache.js')).cacheStatus(deps);
  writeStatus(deps.io, statusView(settings, usage, cache), deps.format(), { now: deps.now(), bom: csvBom(deps) });
  if (!settings.key) throw new AuthError('no API key is set', { hint: 'run `rep login`, or set REP_API_KEY' });
}

/** The local request count for a key; none (0, with a warning) when the state dir cannot be read. */
async function requestStatus(deps: Deps, key: string): Promise<RequestStatus | undefined> {
  const { readRequestStatus, keyId, requestsDir } = await import('../state/requests.js');
  const { stateDir } = deps.paths();
  try {
    return readRequestStatus(stateDir, keyId(key), deps.now());
  } catch (error) {
    deps.warn(`cannot read the request count in ${requestsDir(stateDir)} (${systemErrorText(error)})`);
    return undefined;
  }
}
