import type { HistoryPoint } from '../src/store/port.js';

export interface TrendOptions {
  companies?: number;
  names?: string[];
  days?: number;
  now?: number;
  baseUrl?: string;
  seed?: number;
}
export function trendPoints(options?: TrendOptions): HistoryPoint[];
export function historyLines(points: readonly HistoryPoint[]): string;
