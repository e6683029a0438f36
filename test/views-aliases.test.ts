// The rules of views/aliases.ts, each with a body in the shape of the public API it comes from:
// where the score, its scale, the total of reviews and the name are found, and what never wins.
import { describe, expect, it } from 'vitest';
import type { Format } from '../src/deps.js';
import { testIO } from '../src/io.js';
import { writeResult } from '../src/output/render.js';
import { auditView } from '../src/views/index.js';
import { API_FIXTURES } from './fixtures/reputation-apis.js';
import { expectNothingLost } from './fixtures/nothing-lost.js';

async function render(body: unknown, format: Format): Promise<string> {
  const io = testIO({ columns: 100 });
  await writeResult(io, 'audit', body, format);
  return io.stdoutText();
}

describe('bodies in the shapes public APIs document', () => {
  it.each(Object.entries(API_FIXTURES))('%s: name, score, scale and reviews, with nothing lost', (_name, { body, expected }) => {
    const view = auditView(body);
    expect({ name: view.name, score: view.score, scoreMax: view.scoreMax, reviews: view.reviews }).toEqual({
      name: expected.name,
      score: expected.score,
      scoreMax: expected.scoreMax,
      reviews: expected.reviews,
    });
    expect(view.paths.score).toBe(expected.scorePath);
    expectNothingLost(body, view);
  });
});

describe('the score', () => {
  it.each([
    ['current', { current: { score: 80, at: 'now' } }, 'current.score'],
    ['latest', { latest: { score: 80 } }, 'latest.score'],
    ['summary', { summary: { score: 80, reviews: 3 } }, 'summary.score'],
    ['now', { name: 'x', now: { rating: 80 } }, 'now.rating'],
  ])('is found in a record that describes the present (%s)', (_key, body, path) => {
    const view = auditView(body);
    expect(view.score).toBe(80);
    expect(view.paths.score).toBe(path);
  });

  it.each([
    ['history', { history: [{ score: 99 }], current: { score: 78 } }],
    ['previous, before the present in the body', { previous: { score: 98 }, current: { score: 78 } }],
    ['trend', { trend: { score: 97 }, latest: { score: 78 } }],
    ['past inside the score record', { score: { previous: 70, current: 78 } }],
    ['past inside the present', { data: { current: { score: 78, previous: { score: 70 } } } }],
  ])('never comes from the past (%s)', (_name, body) => {
    const view = auditView(body);
    expect(view.score).toBe(78);
    expectNothingLost(body, view);
  });

  it('is not guessed from the past when the present has none: the past stays a detail', () => {
    const view = auditView({ history: [{ score: 75 }], previous: { score: 70 } });
    expect(view.score).toBeUndefined();
    expect(view.details).toEqual([
      ['history[0].score', 75],
      ['previous.score', 70],
    ]);
  });

  it('prefers the most specific name inside a score record, whatever the order (Trustpilot `score: { stars, trustScore }`)', () => {
    const view = auditView({ score: { stars: 4, trustScore: 4.2 } });
    expect(view.score).toBe(4.2);
    expect(view.details).toEqual([['score.stars', 4]]);
  });

  it.each([
    ['result › business', { result: { business: { name: 'Acme', rating: 4.1 } } }, 'result.business.rating'],
    ['data › company', { data: { company: { name: 'Acme', rating: 4.1 } }, meta: { page: 1 } }, 'data.company.rating'],
    ['company', { company: { name: 'Acme', rating: 4.1 } }, 'company.rating'],
    ['business › current', { business: { name: 'Acme', current: { rating: 4.1 } } }, 'business.current.rating'],
  ])('is found with the company under envelopes (%s)', (_name, body, path) => {
    const view = auditView(body);
    expect({ name: view.name, score: view.score, path: view.paths.score }).toEqual({ name: 'Acme', score: 4.1, path });
  });

  it('is found in the only item of a list, and not guessed from a list of several', () => {
    expect(auditView({ businesses: [{ name: 'Only', rating: 4 }] })).toMatchObject({ name: 'Only', score: 4 });
    const two = {
      businesses: [
        { name: 'A', rating: 4 },
        { name: 'B', rating: 3 },
      ],
      total: 2,
    };
    const view = auditView(two);
    expect(view.score).toBeUndefined();
    expectNothingLost(two, view);
  });

  it('at the top wins over one further in', () => {
    expect(auditView({ rating: 3, current: { score: 78 } })).toMatchObject({ score: 3, paths: { score: 'rating' } });
  });
});

describe('the scale', () => {
  it.each([
    ['score_scale (the sandbox)', { score: 87.4, score_scale: 100 }, '87.4 / 100'],
    ['max beside the score', { current: { score: 78, max: 100 } }, '78.0 / 100'],
    ['out_of', { rating: 4.5, out_of: 5 }, '4.5 / 5'],
    ['stars, which are on five (Yelp Open Dataset)', { stars: 4.5 }, '4.5 / 5'],
    ['bestRating (schema.org)', { aggregateRating: { ratingValue: 4.4, bestRating: 5 } }, '4.4 / 5'],
  ])('%s is shown as "/ N"', async (_name, body, shown) => {
    expect(await render(body, 'table')).toContain(`Reputation Score  ${shown}\n`);
  });
});

describe('the total of reviews', () => {
  it.each([
    ['review_count', { rating: 4, review_count: 1234 }], // Yelp Fusion
    ['reviews_count', { rating: 4, reviews_count: 1234 }],
    ['user_ratings_total', { rating: 4, user_ratings_total: 1234 }], // Google Places (legacy)
    ['userRatingCount', { rating: 4, userRatingCount: 1234 }], // Google Places (New)
    ['numberOfReviews.total', { score: { trustScore: 4 }, numberOfReviews: { total: 1234, oneStar: 1 } }], // Trustpilot
    ['rating_count', { rating: 4, rating_count: 1234 }],
    ['reviewCount inside the score record', { aggregateRating: { ratingValue: 4, reviewCount: '1234' } }], // schema.org
  ])('%s is the reviews figure, in the table and the CSV', async (_name, body) => {
    expect(auditView(body).reviews).toBe(1234);
    expect(await render(body, 'table')).toMatch(/^Reviews +1,234$/m);
    expect((await render(body, 'csv')).split('\n')[1]).toBe(',4,,,1234');
  });

  it('is not a count of businesses, nor a list of reviews', () => {
    const view = auditView({ businesses: [{ name: 'A', rating: 4 }], total: 1, reviews: [{ text: 'great' }] });
    expect(view.reviews).toBeUndefined();
    expect(view.details).toContainEqual(['total', 1]);
    expect(view.details).toContainEqual(['reviews[0].text', 'great']);
  });

  it('the company total sits under the score, aligned with it; per-source reviews stay in the source rows', async () => {
    const body = { name: 'Acme', score: 80, score_scale: 100, review_count: 12345, sources: [{ source: 'Google', rating: 4.5, reviews: 12000 }] };
    const table = await render(body, 'table');
    expect(table).toContain('Reputation Score  80.0 / 100\nReviews           12,345\n');
    expect(table).toMatch(/│ Google +│ +4\.5 │ +12,000 │/);
  });
});

describe('a tie is never taken silently', () => {
  const TIE = { score: { trustScore: 4.2, stars: 4 }, rating: 4.5 };

  it('records the other candidates as deep as the one taken, which stay details', () => {
    const view = auditView(TIE);
    expect(view).toMatchObject({ score: 4.2, paths: { score: 'score.trustScore' }, alsoFound: { score: ['rating'] } });
    expect(view.details).toEqual([
      ['score.stars', 4],
      ['rating', 4.5],
    ]);
  });

  it('the table says which field was taken, above the details that show the other', async () => {
    const table = await render(TIE, 'table');
    expect(table).toContain('Reputation Score  4.2\nscore taken from `score.trustScore` (also found: `rating`)\n');
    expect(table).toMatch(/│ Rating +│ 4\.5 +│/);
  });

  it('says so for the total of reviews too', async () => {
    const view = auditView({ rating: 4, review_count: 10, userRatingCount: 12 });
    expect(view.alsoFound).toEqual({ reviews: ['userRatingCount'] });
    expect(await render({ rating: 4, review_count: 10, userRatingCount: 12 }, 'table')).toContain(
      'reviews taken from `review_count` (also found: `userRatingCount`)',
    );
  });

  it.each([
    ['the same value twice', { score: 4, rating: 4 }],
    ['another value further in', { rating: 4, current: { score: 78 } }],
  ])('is no tie: %s', async (_name, body) => {
    expect(auditView(body).alsoFound).toBeUndefined();
    expect(await render(body, 'table')).not.toContain('taken from');
  });

  it('names only the known names of a path, so server text beside them never reaches the note', async () => {
    const table = await render({ score: 1, 'rat\u001b[2Jing': 2, overall: 3 }, 'table');
    expect(table).toContain('score taken from `score` (also found: `overall`)\n');
    expect(table).not.toContain('\u001b');
  });
});
