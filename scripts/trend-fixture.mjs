// A deterministic history for the report and the chart (tests, screenshots, bench): companies with a
// daily score that drifts, and the market index, as the JSON lines rep's history file holds.

const NAMES = ['Blue Bottle Coffee', 'Кофейня Ромашка', 'Ritual Coffee', 'Tartine Bakery', 'Northwind Books', 'Golden Gate Dental'];
const SOURCES = ['Google', 'Yelp', 'Trustpilot'];

/** A small seeded generator (mulberry32): the same seed, the same walk. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Points of `companies` names (the first few are real-looking, then `Company N`, or `names` as given)
 * over `days` days up to `now`, one a day each, and the market's, at `baseUrl` (as baseUrlKey writes it).
 */
export function trendPoints({
  companies = NAMES.length,
  names,
  days = 90,
  now = Math.floor(Date.now() / 86_400_000) * 86_400_000,
  baseUrl = 'http://127.0.0.1:9/api',
  seed = 34,
} = {}) {
  const next = random(seed);
  const list = names ?? Array.from({ length: companies }, (_, index) => NAMES[index] ?? `Company ${index + 1}`);
  const points = [];
  let id = 0;
  const day = 24 * 3600 * 1000;
  const walks = list.map((_, index) => ({ score: 60 + next() * 30, drift: (next() - 0.55) * 0.3 * (index % 3 === 0 ? 2 : 1) }));
  let market = 72;
  for (let d = days - 1; d >= 0; d--) {
    const at = new Date(now - d * day).toISOString();
    market = Math.min(100, Math.max(0, market + (next() - 0.5) * 0.6));
    points.push({ id: `m${id++}`, at, base_url: baseUrl, query: '', score: Math.round(market * 10) / 10, sources: [] });
    list.forEach((name, index) => {
      const walk = walks[index];
      walk.score = Math.min(100, Math.max(0, walk.score + walk.drift + (next() - 0.5) * 1.2));
      const sources = SOURCES.slice(0, 1 + (index % 3)).map((source) => ({ source, rating: Math.round(walk.score / 2) / 10, reviews: 100 + index }));
      points.push({ id: `p${id++}`, at, base_url: baseUrl, query: name, name, score: Math.round(walk.score * 10) / 10, scale: 100, sources });
    });
  }
  return points;
}

/** The points as history lines. */
export function historyLines(points) {
  return `${points.map((point) => JSON.stringify(point)).join('\n')}\n`;
}
