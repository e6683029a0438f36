// The market index in the history: each fresh `pulse` answer is a point of the series MARKET_SERIES
// of its base URL, so a company's fall can be read against the market's.
import { baseUrlKey } from '../api/base-url.js';
import type { Deps } from '../deps.js';
import { systemErrorText } from '../errors.js';
import { MARKET_SERIES, type HistoryPoint } from '../store/port.js';
import { randomHex } from '../state/ids.js';

/** The point of a fresh market index fetched at `at` from `baseUrl`. */
export function marketPoint(index: number, at: number, baseUrl: URL | string): HistoryPoint {
  return { id: randomHex(8), at: new Date(at).toISOString(), base_url: baseUrlKey(baseUrl), query: MARKET_SERIES, score: index, sources: [] };
}

/** Records a freshly fetched index (never a cached one) in the run's store; a failure is one warning. */
export async function recordMarket(deps: Deps, index: number): Promise<void> {
  const baseUrl = await deps.storeBaseUrl();
  if (!baseUrl || !Number.isFinite(index)) return;
  const store = deps.store();
  try {
    await store.history.append([marketPoint(index, deps.now(), baseUrl)]);
  } catch (error) {
    deps.warn(`cannot record the market index in the history (${systemErrorText(error)})`);
  }
}
