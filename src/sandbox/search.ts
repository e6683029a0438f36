// Ranked matching of a search text against the sandbox's companies, cities and categories.
import type { Company, NamedCount, SandboxData } from './data.js';

/** The service answers at most this many results of each type. */
export const SEARCH_LIMIT = 5;

export interface SearchResults {
  readonly companies: readonly Company[];
  readonly cities: readonly NamedCount[];
  readonly categories: readonly NamedCount[];
}

/** The form names are compared in: NFC, trimmed, inner whitespace collapsed, lower case. */
export function normalizeName(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** 0 exact, 1 prefix, 2 prefix of a word, 3 anywhere; undefined when `query` is not in `name`. */
export function matchRank(name: string, query: string): number | undefined {
  let index = name.indexOf(query);
  if (index === -1) return undefined;
  if (name === query) return 0;
  if (index === 0) return 1;
  while (index !== -1) {
    if (!WORD_CHAR.test(name.charAt(index - 1))) return 2;
    index = name.indexOf(query, index + 1);
  }
  return 3;
}

interface Ranked<T> {
  readonly item: T;
  readonly rank: number;
  readonly weight: number;
  readonly name: string;
}

function topMatches<T extends { readonly name: string }>(items: readonly T[], query: string, weightOf: (item: T) => number): T[] {
  const ranked: Ranked<T>[] = [];
  for (const item of items) {
    const rank = matchRank(normalizeName(item.name), query);
    if (rank !== undefined) ranked.push({ item, rank, weight: weightOf(item), name: item.name });
  }
  // Code-unit order for names keeps the ranking identical whatever the host's ICU data is.
  ranked.sort((a, b) => a.rank - b.rank || b.weight - a.weight || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ranked.slice(0, SEARCH_LIMIT).map((entry) => entry.item);
}

/** Up to SEARCH_LIMIT of each type: exact > prefix > word prefix > substring, then bigger first, then by name. */
export function searchAll(data: SandboxData, text: string): SearchResults {
  const query = normalizeName(text);
  if (query === '') return { companies: [], cities: [], categories: [] };
  return {
    companies: topMatches(data.companies, query, (company) => company.score),
    cities: topMatches(data.cities, query, (city) => city.companies),
    categories: topMatches(data.categories, query, (category) => category.companies),
  };
}
