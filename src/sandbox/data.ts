// The sandbox's deterministic data set: companies with Latin and Cyrillic names, cities, categories
// and ratings from several sources, generated from a fixed seed so every run serves the same answers.
import { createRandom, type Random } from './prng.js';
import { normalizeName } from './search.js';
import {
  CYRILLIC_CATEGORIES,
  CYRILLIC_CITIES,
  CYRILLIC_NOUNS,
  FIXED_COMPANIES,
  LATIN_ADJECTIVES,
  LATIN_CATEGORIES,
  LATIN_CITIES,
  LATIN_NOUNS,
  SOURCES,
  type CategoryWords,
} from './words.js';

export interface SourceRating {
  readonly source: string;
  readonly rating: number;
  readonly reviews: number;
}

export interface Company {
  readonly id: string;
  readonly name: string;
  readonly city: string;
  readonly category: string;
  readonly sources: readonly SourceRating[];
  readonly reviewsTotal: number;
  /** Reputation Score, 0 to 100 with one decimal. */
  readonly score: number;
}

/** A city or a category with the number of companies in it. */
export interface NamedCount {
  readonly name: string;
  readonly companies: number;
}

export interface SandboxData {
  readonly companies: readonly Company[];
  readonly cities: readonly NamedCount[];
  readonly categories: readonly NamedCount[];
  /** Companies by normalizeName(name). */
  readonly byName: ReadonlyMap<string, Company>;
}

export const SANDBOX_SEED = 0x5eed_2026;
export const SANDBOX_COMPANY_COUNT = 2400;
/** The data set's one timestamp; the sandbox never reads the clock for data. */
export const SANDBOX_UPDATED_AT = '2026-11-01T00:00:00Z';

// The score shrinks towards this rating as if it had this many extra reviews, so few reviews mean less certainty.
const PRIOR_RATING = 3.5;
const PRIOR_REVIEWS = 25;
const MAX_REVIEWS = 5000;

const round1 = (value: number): number => Math.round(value * 10) / 10;

/** Review-weighted mean rating, shrunk towards the prior, mapped from 1..5 to 0..100. */
export function reputationScore(sources: readonly SourceRating[]): number {
  let reviews = 0;
  let weighted = 0;
  for (const source of sources) {
    reviews += source.reviews;
    weighted += source.rating * source.reviews;
  }
  const shrunk = (weighted + PRIOR_RATING * PRIOR_REVIEWS) / (reviews + PRIOR_REVIEWS);
  return round1(((shrunk - 1) / 4) * 100);
}

function generateSources(random: Random): SourceRating[] {
  // Squaring skews quality towards the top, as real ratings are.
  const quality = 5 - 3 * random.next() ** 2;
  return random.sample(SOURCES, random.int(2, 6)).map((source) => ({
    source,
    rating: Math.min(5, Math.max(1, round1(quality + (random.next() - 0.5) * 1.2))),
    // Log-uniform review counts: many small listings, a few big ones.
    reviews: Math.floor(Math.exp(random.next() * Math.log(MAX_REVIEWS))),
  }));
}

interface Draft {
  readonly name: string;
  readonly city: string;
  readonly category: string;
}

function draftCompany(random: Random): Draft {
  const cyrillic = random.next() < 0.5;
  // Most companies sit in a city of their own script; some do not, as in life.
  const sameScript = random.next() < 0.85;
  const cities: readonly string[] = cyrillic === sameScript ? CYRILLIC_CITIES : LATIN_CITIES;
  const category: CategoryWords = random.pick(cyrillic ? CYRILLIC_CATEGORIES : LATIN_CATEGORIES);
  const brand = random.pick(category.brands);
  let name: string;
  if (cyrillic) {
    name = `${brand} ${random.pick(CYRILLIC_NOUNS)}`;
  } else if (random.next() < 0.75) {
    name = `${random.pick(LATIN_ADJECTIVES)} ${random.pick(LATIN_NOUNS)} ${brand}`;
  } else {
    name = `${random.pick(LATIN_NOUNS)} & ${random.pick(LATIN_NOUNS)} ${brand}`;
  }
  return { name, city: random.pick(cities), category: category.name };
}

function countBy(names: readonly string[], companies: readonly Company[], key: 'city' | 'category'): NamedCount[] {
  const counts = new Map<string, number>(names.map((name) => [name, 0]));
  for (const company of companies) counts.set(company[key], (counts.get(company[key]) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, companies: count }));
}

/** Builds the data set from scratch; use sandboxData() to share one. */
export function buildSandboxData(): SandboxData {
  const random = createRandom(SANDBOX_SEED);
  const companies: Company[] = [];
  const byName = new Map<string, Company>();
  const add = (draft: Draft): void => {
    const key = normalizeName(draft.name);
    if (byName.has(key)) return;
    const sources = generateSources(random);
    const company: Company = {
      id: `c-${String(companies.length + 1).padStart(5, '0')}`,
      ...draft,
      sources,
      reviewsTotal: sources.reduce((total, source) => total + source.reviews, 0),
      score: reputationScore(sources),
    };
    companies.push(company);
    byName.set(key, company);
  };
  for (const fixed of FIXED_COMPANIES) add(fixed);
  while (companies.length < SANDBOX_COMPANY_COUNT) add(draftCompany(random));
  const cityNames = [...LATIN_CITIES, ...CYRILLIC_CITIES];
  const categoryNames = [...LATIN_CATEGORIES, ...CYRILLIC_CATEGORIES].map((category) => category.name);
  return {
    companies,
    cities: countBy(cityNames, companies, 'city'),
    categories: countBy(categoryNames, companies, 'category'),
    byName,
  };
}

let shared: SandboxData | undefined;

/** The data set, built on first use and shared after. */
export function sandboxData(): SandboxData {
  shared ??= buildSandboxData();
  return shared;
}

/** The company with this name, ignoring case, outer and repeated whitespace, and Unicode composition. */
export function findCompany(data: SandboxData, name: string): Company | undefined {
  return data.byName.get(normalizeName(name));
}

/** The market index: the mean of every company's score as served, rounded to two decimals (one more than the scores). */
export function pulseIndex(data: SandboxData): number {
  // The scores have one decimal: summed as whole tenths the total is exact, so no float noise reaches the mean.
  let tenths = 0;
  for (const company of data.companies) tenths += Math.round(company.score * 10);
  return Math.round((tenths * 10) / data.companies.length) / 100;
}
