// The sandbox's endpoints as pure functions from a parsed query to a status and a JSON body.
import { findCompany, pulseIndex, type Company, type NamedCount, type SandboxData } from './data.js';
import { searchAll } from './search.js';

export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type RouteHandler = (query: ReadonlyMap<string, string>, data: SandboxData) => Reply;

export function errorReply(status: number, code: string, message: string, headers?: Readonly<Record<string, string>>): Reply {
  return { status, body: { error: { code, message } }, ...(headers ? { headers } : {}) };
}

/** Thrown for a query string that is not valid percent-encoded UTF-8. */
export class MalformedQueryError extends Error {}

/** URLSearchParams semantics (`+` is a space, first value wins), but malformed escapes are an error, not kept as text. */
export function parseQuery(raw: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const [name, value] = equals === -1 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
    try {
      const decodedName = decodeURIComponent(name.replaceAll('+', ' '));
      if (!params.has(decodedName)) params.set(decodedName, decodeURIComponent(value.replaceAll('+', ' ')));
    } catch {
      throw new MalformedQueryError('Malformed percent-encoding in the query string');
    }
  }
  return params;
}

const missingQuery = (): Reply => errorReply(400, 'bad_request', 'Missing required parameter: q');

function requiredText(query: ReadonlyMap<string, string>): string | undefined {
  const text = query.get('q');
  return text === undefined || text.trim() === '' ? undefined : text;
}

const companyRef = (company: Company) => ({
  id: company.id,
  name: company.name,
  city: company.city,
  category: company.category,
});

const namedCount = (entry: NamedCount) => ({ name: entry.name, companies: entry.companies });

const audit: RouteHandler = (query, data) => {
  const name = requiredText(query);
  if (name === undefined) return missingQuery();
  const company = findCompany(data, name);
  if (company === undefined) {
    return errorReply(404, 'company_not_found', `No company named "${name.trim()}"`);
  }
  return {
    status: 200,
    body: {
      company: companyRef(company),
      score: company.score,
      score_scale: 100,
      sources: company.sources.map((source) => ({ source: source.source, rating: source.rating, reviews: source.reviews })),
      reviews_total: company.reviewsTotal,
      updated_at: data.updatedAt,
    },
  };
};

const search: RouteHandler = (query, data) => {
  const text = requiredText(query);
  if (text === undefined) return missingQuery();
  const results = searchAll(data, text);
  return {
    status: 200,
    body: {
      query: text,
      companies: results.companies.map((company) => ({ ...companyRef(company), score: company.score })),
      cities: results.cities.map(namedCount),
      categories: results.categories.map(namedCount),
    },
  };
};

const pulse: RouteHandler = (_query, data) => ({
  status: 200,
  body: { index: pulseIndex(data), companies: data.companies.length, updated_at: data.updatedAt },
});

/** Paths relative to the base path. */
export const ROUTES: ReadonlyMap<string, RouteHandler> = new Map([
  ['/audit', audit],
  ['/search', search],
  ['/pulse', pulse],
]);
