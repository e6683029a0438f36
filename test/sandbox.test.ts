import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildSandboxData, findCompany, sandboxData, sandboxDataOn } from '../src/sandbox/data.js';
import { SANDBOX_KEY, startSandbox, type RunningSandbox, type SandboxOptions } from '../src/sandbox/server.js';

const FIXED_NAMES = ['Кофейня Ромашка', 'Blue Bottle Coffee', 'AT&T #5', '100% Natural', 'a/b?c=d Studio', 'Smile 😀 Dental', 'Ёлка'];
const CYRILLIC = /[\u0400-\u04ff]/u;
const LATIN = /[A-Za-z]/u;

interface ErrorBody {
  error: { code: string; message: string };
}
interface SearchBody {
  query: string;
  companies: { id: string; name: string; city: string; category: string; score: number }[];
  cities: { name: string; companies: number }[];
  categories: { name: string; companies: number }[];
}
interface AuditBody {
  company: { id: string; name: string; city: string; category: string };
  score: number;
  score_scale: number;
  sources: { source: string; rating: number; reviews: number }[];
  reviews_total: number;
  updated_at: string;
}

function get(sandbox: RunningSandbox, pathAndQuery: string, key: string | null = sandbox.key, method = 'GET') {
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  return fetch(`${sandbox.url}${pathAndQuery}`, { method, headers });
}

async function json<T>(response: Response): Promise<T> {
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return (await response.json()) as T;
}

describe('sandbox data set', () => {
  const data = sandboxData();

  it('is big and varied: Latin and Cyrillic names, ~50 cities, ~40 categories, 2-6 sources', () => {
    expect(data.companies.length).toBeGreaterThanOrEqual(2000);
    expect(data.companies.filter((c) => CYRILLIC.test(c.name)).length).toBeGreaterThan(500);
    expect(data.companies.filter((c) => LATIN.test(c.name) && !CYRILLIC.test(c.name)).length).toBeGreaterThan(500);
    expect(data.cities.length).toBeGreaterThanOrEqual(45);
    expect(data.cities.some((city) => CYRILLIC.test(city.name))).toBe(true);
    expect(data.cities.some((city) => LATIN.test(city.name))).toBe(true);
    expect(data.categories.length).toBeGreaterThanOrEqual(35);
    const malformed = data.companies.filter(
      (company) =>
        !/^c-\d{5}$/.test(company.id) ||
        company.sources.length < 2 ||
        company.sources.length > 6 ||
        !(company.score >= 0 && company.score <= 100) ||
        company.sources.some((s) => !(s.rating >= 1 && s.rating <= 5) || !Number.isInteger(s.reviews)),
    );
    expect(malformed).toEqual([]);
  });

  it('has unique names, case-insensitively, and unique ids', () => {
    expect(new Set(data.companies.map((c) => c.name.toLowerCase())).size).toBe(data.companies.length);
    expect(new Set(data.companies.map((c) => c.id)).size).toBe(data.companies.length);
  });

  it('is deterministic: two builds are equal', () => {
    const again = buildSandboxData();
    expect(again.companies).toEqual(data.companies);
    expect(again.cities).toEqual(data.cities);
    expect(again.categories).toEqual(data.categories);
  });

  it('contains the fixed companies the README names', () => {
    for (const name of FIXED_NAMES) expect(findCompany(data, name)?.name).toBe(name);
    expect(findCompany(data, 'Кофейня Ромашка')).toMatchObject({ city: 'Москва', category: 'Кофейня' });
  });

  it('finds companies ignoring case, extra whitespace and Unicode composition', () => {
    expect(findCompany(data, '  кофейня   РОМАШКА ')?.name).toBe('Кофейня Ромашка');
    expect(findCompany(data, 'Е\u0308лка')?.name).toBe('Ёлка');
    expect(findCompany(data, 'No Such Place')).toBeUndefined();
  });
});

describe('sandbox server', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('serves on a loopback port under /api with the sandbox key', () => {
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}/api`);
    expect(sandbox.key).toBe(SANDBOX_KEY);
  });

  it('audits a company', async () => {
    const response = await get(sandbox, `/audit?q=${encodeURIComponent('Кофейня Ромашка')}`);
    expect(response.status).toBe(200);
    const body = await json<AuditBody>(response);
    // The sandbox serves today's data: each score has drifted from the data set's own (sandboxDataOn).
    const today = sandboxDataOn(Date.now());
    const company = findCompany(today, 'Кофейня Ромашка');
    expect(body).toEqual({
      company: { id: company?.id, name: 'Кофейня Ромашка', city: 'Москва', category: 'Кофейня' },
      score: company?.score,
      score_scale: 100,
      sources: company?.sources,
      reviews_total: company?.sources.reduce((total, source) => total + source.reviews, 0),
      updated_at: today.updatedAt,
    });
  });

  it.each(FIXED_NAMES)('round-trips %s through percent-encoding', async (name) => {
    const audit = await json<AuditBody>(await get(sandbox, `/audit?q=${encodeURIComponent(name)}`));
    expect(audit.company.name).toBe(name);
    const search = await json<SearchBody>(await get(sandbox, `/search?q=${encodeURIComponent(name)}`));
    expect(search.query).toBe(name);
    expect(search.companies[0]?.name).toBe(name);
  });

  it('reads + as a space', async () => {
    const body = await json<AuditBody>(await get(sandbox, '/audit?q=Blue+Bottle+Coffee'));
    expect(body.company.name).toBe('Blue Bottle Coffee');
  });

  it('answers 404 company_not_found for an unknown company', async () => {
    const response = await get(sandbox, '/audit?q=Nowhere%20Diner');
    expect(response.status).toBe(404);
    const body = await json<ErrorBody>(response);
    expect(body.error.code).toBe('company_not_found');
    expect(body.error.message).toContain('Nowhere Diner');
  });

  it.each(['/audit', '/audit?q=', '/audit?q=%20%20', '/search', '/search?q=+'])('answers 400 for %s', async (path) => {
    const response = await get(sandbox, path);
    expect(response.status).toBe(400);
    expect(await json<ErrorBody>(response)).toEqual({
      error: { code: 'bad_request', message: 'Missing required parameter: q' },
    });
  });

  it('answers 400, not a crash, for malformed percent-encoding', async () => {
    for (const query of ['%zz', '%E0%A4%A', '%ED%A0%80']) {
      const response = await get(sandbox, `/audit?q=${query}`);
      expect(response.status).toBe(400);
      expect((await json<ErrorBody>(response)).error.code).toBe('bad_request');
    }
  });

  it('searches at most 5 of each type, exact match first', async () => {
    const response = await get(sandbox, '/search?q=coffee');
    expect(response.status).toBe(200);
    const body = await json<SearchBody>(response);
    expect(body.query).toBe('coffee');
    expect(body.companies).toHaveLength(5);
    expect(body.categories[0]).toMatchObject({ name: 'Coffee shop' });
    for (const list of [body.companies, body.cities, body.categories]) expect(list.length).toBeLessThanOrEqual(5);

    const exact = await json<SearchBody>(await get(sandbox, '/search?q=blue%20bottle%20coffee'));
    expect(exact.companies[0]?.name).toBe('Blue Bottle Coffee');
    const city = await json<SearchBody>(await get(sandbox, `/search?q=${encodeURIComponent('Москва')}`));
    expect(city.cities[0]?.name).toBe('Москва');
    expect(city.cities[0]?.companies).toBe(sandboxData().companies.filter((c) => c.city === 'Москва').length);
  });

  it('ranks prefix before word prefix before substring, then by score', async () => {
    const body = await json<SearchBody>(await get(sandbox, `/search?q=${encodeURIComponent('Кофейня')}`));
    expect(body.categories[0]?.name).toBe('Кофейня');
    expect(body.companies.every((c) => c.name.startsWith('Кофейня'))).toBe(true);
    const scores = body.companies.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('answers 200 with empty arrays when nothing matches', async () => {
    const response = await get(sandbox, '/search?q=zzzqqq');
    expect(response.status).toBe(200);
    expect(await json<SearchBody>(response)).toEqual({ query: 'zzzqqq', companies: [], cities: [], categories: [] });
  });

  it('gives pulse as the mean of all scores, exact to two decimals', async () => {
    const { companies, updatedAt } = sandboxDataOn(Date.now());
    // One-decimal scores summed as whole tenths: exact, then the mean to two decimals.
    const tenths = companies.reduce((total, company) => total + Math.round(company.score * 10), 0);
    expect(companies.every((company) => Math.round(company.score * 10) === company.score * 10)).toBe(true);
    const mean = Math.round((tenths * 10) / companies.length) / 100;
    const response = await get(sandbox, '/pulse');
    expect(response.status).toBe(200);
    expect(await json<unknown>(response)).toEqual({
      index: mean,
      companies: companies.length,
      updated_at: updatedAt,
    });
  });

  it('answers 401 without a key or with a wrong one', async () => {
    const missing = await get(sandbox, '/pulse', null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(missing.headers.get('x-ratelimit-limit')).toBeNull();
    expect(await json<ErrorBody>(missing)).toEqual({ error: { code: 'unauthorized', message: 'Missing API key' } });

    const wrong = await get(sandbox, '/pulse', 'not_the_key');
    expect(wrong.status).toBe(401);
    expect(await json<ErrorBody>(wrong)).toEqual({ error: { code: 'unauthorized', message: 'Invalid API key' } });
  });

  it('answers 405 with Allow: GET for other methods', async () => {
    for (const method of ['POST', 'DELETE', 'PUT']) {
      const response = await get(sandbox, '/pulse', sandbox.key, method);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect((await json<ErrorBody>(response)).error.code).toBe('method_not_allowed');
    }
  });

  it('answers 404 not_found for unknown paths', async () => {
    for (const path of ['/nope', '', '/audit/extra']) {
      const response = await get(sandbox, path);
      expect(response.status).toBe(404);
      expect((await json<ErrorBody>(response)).error.code).toBe('not_found');
    }
    const outside = await fetch(sandbox.url.replace(/\/api$/, '/pulse'));
    expect(outside.status).toBe(404);
  });
});

describe('sandbox rate limit', () => {
  let sandbox: RunningSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  async function start(options: SandboxOptions): Promise<RunningSandbox> {
    sandbox = await startSandbox(options);
    return sandbox;
  }

  it('sends limit, decreasing remaining and reset on every authenticated answer', async () => {
    const now = 1_800_000_000_500;
    const server = await start({ now: () => now });
    const remaining: (string | null)[] = [];
    for (const path of ['/pulse', '/audit?q=nobody', '/search?q=x']) {
      const response = await get(server, path);
      expect(response.headers.get('x-ratelimit-limit')).toBe('100');
      expect(response.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((now + 3_600_000) / 1000)));
      remaining.push(response.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['99', '98', '97']);
  });

  it('answers 429 with Retry-After past the limit, and opens a new window when it ends', async () => {
    let now = 1_800_000_000_000;
    const server = await start({ limit: 3, now: () => now });
    for (let i = 0; i < 3; i++) expect((await get(server, '/pulse')).status).toBe(200);

    now += 1_000_250;
    const limited = await get(server, '/pulse');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2600');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await json<ErrorBody>(limited)).toEqual({
      error: { code: 'rate_limited', message: 'Rate limit exceeded: 3 requests per hour' },
    });

    now += 2_599_749;
    const last = await get(server, '/pulse');
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');

    now += 1;
    const fresh = await get(server, '/pulse');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('honours a custom key and base path, and closes with keep-alive connections open', async () => {
    const server = await start({ key: 'other', basePath: '/v1/api/', port: 0 });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1/api`);
    expect((await get(server, '/pulse', SANDBOX_KEY)).status).toBe(401);
    expect((await get(server, '/pulse', 'other')).status).toBe(200);
    await server.close();
    await server.close();
    await expect(get(server, '/pulse')).rejects.toThrow();
  });
});
