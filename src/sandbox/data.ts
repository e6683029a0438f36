// The sandbox's deterministic data set: companies with Latin and Cyrillic names, cities, categories
// and ratings from several sources, generated from a fixed seed so every run serves the same answers;
// each company's score drifts a little from one UTC day to the next (seeded too), so a history shows a trend.
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
  /** The start of the UTC day whose scores these are (ISO 8601). */
  readonly updatedAt: string;
}

export const SANDBOX_SEED = 0x5eed_2026;
export const SANDBOX_COMPANY_COUNT = 2400;
/** The day the data set's scores are as generated; on any other day each has drifted (sandboxDataOn). */
export const SANDBOX_UPDATED_AT = '2026-11-01T00:00:00Z';
const DAY_MS = 86_400_000;
// A company's score swings by up to this many points around its own, over a seeded period of weeks.
const DRIFT_POINTS = 3;

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
    updatedAt: SANDBOX_UPDATED_AT,
  };
}

let shared: SandboxData | undefined;

/** The data set as generated (SANDBOX_UPDATED_AT's day), built on first use and shared after. */
export function sandboxData(): SandboxData {
  shared ??= buildSandboxData();
  return shared;
}

/** The UTC day (days since the epoch) of an instant. */
export function utcDay(epochMs: number): number {
  return Math.floor(epochMs / DAY_MS);
}

/**
 * How far a company's score has moved on `day`: a seeded swing of up to DRIFT_POINTS over a period of
 * two to eight weeks, so consecutive days differ by a little and a history shows a trend, not noise.
 */
export function scoreDrift(companyIndex: number, day: number): number {
  const random = createRandom((SANDBOX_SEED ^ Math.imul(companyIndex + 1, 0x9e37_79b1)) >>> 0);
  const amplitude = DRIFT_POINTS * (0.2 + 0.8 * random.next());
  const periodDays = random.int(14, 56);
  const phase = random.next();
  const since = day - utcDay(Date.parse(SANDBOX_UPDATED_AT));
  return amplitude * (Math.sin(2 * Math.PI * (since / periodDays + phase)) - Math.sin(2 * Math.PI * phase));
}

let daily: { day: number; data: SandboxData } | undefined;

/** The data set on the UTC day of `epochMs`: every score drifted by its own seeded amount (sandboxData's on its own day). */
export function sandboxDataOn(epochMs: number): SandboxData {
  const day = utcDay(epochMs);
  if (daily?.day === day) return daily.data;
  const base = sandboxData();
  const companies = base.companies.map((company, index) => ({ ...company, score: Math.min(100, Math.max(0, round1(company.score + scoreDrift(index, day)))) }));
  const byName = new Map(companies.map((company) => [normalizeName(company.name), company]));
  const data = { ...base, companies, byName, updatedAt: new Date(day * DAY_MS).toISOString().replace('.000Z', 'Z') };
  daily = { day, data };
  return data;
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
