// Every field name the views know (src/views/aliases.ts), each in a body of its own: a name dropped
// from a list, or misspelt, is a field users stop seeing. The names are spelt out here on purpose.
import { describe, expect, it, vi } from 'vitest';
import { auditView, pulseView, searchView } from '../src/views/index.js';

const words = (text: string) => text.split(' ');

/**
 * The views loaded afresh: the tables that are objects (SEARCH_GROUPS, IMPLIED_SCALE) are built as the
 * module loads, so a test that reads them through a module loaded before it cannot tell a table built
 * wrong (the mutation run changes one only for the test it runs).
 */
async function freshViews(): Promise<typeof import('../src/views/index.js')> {
  vi.resetModules();
  return import('../src/views/index.js');
}

describe('audit names', () => {
  it.each(
    words(
      'reputation_score reputationScore reputation score trustScore trust_score overall_score overallScore overall aggregateRating aggregate_rating rating stars',
    ),
  )('score: %s', (name) => {
    expect(auditView({ [name]: 42 })).toMatchObject({ score: 42, paths: { score: name } });
  });

  it.each(words('value score trustScore trust_score ratingValue rating_value current latest overall rating average avg mean stars'))(
    'score inside a record: %s',
    (name) => {
      expect(auditView({ score: { [name]: 4 } })).toMatchObject({ score: 4, paths: { score: `score.${name}` } });
    },
  );

  it('a score read as stars is out of five when the body gives no scale; other names imply none', async () => {
    const views = await freshViews();
    expect(views.auditView({ stars: 4.5 })).toMatchObject({ score: 4.5, scoreMax: 5 });
    expect(views.auditView({ score: { stars: 4 } })).toMatchObject({ score: 4, scoreMax: 5 });
    expect(views.auditView({ rating: 4.5 }).scoreMax).toBeUndefined();
  });

  it.each(words('score_scale scoreScale score_max scoreMax max_score maxScore scale out_of outOf max'))('scale beside the score: %s', (name) => {
    expect(auditView({ score: 4, [name]: 10 })).toMatchObject({ scoreMax: 10, paths: { scoreMax: name } });
  });

  it.each(words('max scale out_of outOf max_value maxValue best bestRating best_rating'))('scale inside the score record: %s', (name) => {
    expect(auditView({ score: { value: 4, [name]: 10 } })).toMatchObject({ scoreMax: 10, paths: { scoreMax: `score.${name}` } });
  });

  it.each(
    words(
      'review_count reviews_count reviewCount reviewsCount userRatingCount user_ratings_total userRatingsTotal numberOfReviews number_of_reviews rating_count ratingCount ratings_count total_reviews totalReviews num_reviews reviews',
    ),
  )('total of reviews: %s', (name) => {
    expect(auditView({ [name]: 12 })).toMatchObject({ reviews: 12, paths: { reviews: name } });
  });

  it.each(words('total count value'))('total of reviews inside a record: %s', (name) => {
    expect(auditView({ numberOfReviews: { [name]: 12 } })).toMatchObject({ reviews: 12, paths: { reviews: `numberOfReviews.${name}` } });
  });

  it.each(words('name company_name companyName display_name displayName title legal_name'))('name: %s', (name) => {
    expect(auditView({ [name]: 'Acme' })).toMatchObject({ name: 'Acme', paths: { name } });
  });

  it.each(words('text display'))('name inside a record: %s', (name) => {
    expect(auditView({ name: { [name]: 'Acme' } })).toMatchObject({ name: 'Acme', paths: { name: `name.${name}` } });
  });

  it.each(words('company business organization organisation entity businessUnit place'))('the company record: %s', (name) => {
    expect(auditView({ name: 'Outer', [name]: { name: 'Acme' } })).toMatchObject({ name: 'Acme', paths: { name: `${name}.name` } });
  });

  it.each(words('businesses places results candidates businessUnits companies items data'))('a list of one company: %s', (name) => {
    expect(auditView({ [name]: [{ name: 'Acme' }] })).toMatchObject({ name: 'Acme', paths: { name: `${name}[0].name` } });
  });

  it.each(words('current latest now today summary stats statistics this_period thisPeriod current_period currentPeriod'))('the present: %s', (name) => {
    expect(auditView({ [name]: { score: 3 } })).toMatchObject({ score: 3, paths: { score: `${name}.score` } });
  });

  it.each(words('history historical previous prev past prior trend trends timeline series changes archive'))('the past, never read: %s', (name) => {
    expect(auditView({ [name]: { score: 3 } })).toMatchObject({ paths: {}, details: [[`${name}.score`, 3]] });
  });

  it.each(words('data result response payload attributes body content'))('an envelope: %s', (name) => {
    expect(auditView({ [name]: { score: 3 }, meta: 1 })).toMatchObject({ score: 3, paths: { score: `${name}.score` }, details: [['meta', 1]] });
  });

  it.each(
    words(
      'sources by_source bySource sources_summary sourcesSummary source_summary platforms reviews_by_source reviewsBySource summary breakdown ratings channels sites',
    ),
  )('sources: %s', (name) => {
    expect(auditView({ [name]: [{ source: 'G', rating: 4 }] })).toMatchObject({ sources: [{ source: 'G', rating: 4 }], paths: { sources: name } });
  });

  it.each(words('source name platform provider site source_name sourceName title channel'))("a source's name: %s", (name) => {
    expect(auditView({ sources: [{ [name]: 'G' }] }).sources).toEqual([{ source: 'G', extra: [] }]);
  });

  it.each(words('rating score avg average avg_rating average_rating averageRating stars value'))("a source's rating: %s", (name) => {
    expect(auditView({ sources: [{ source: 'G', [name]: 4 }] }).sources).toEqual([{ source: 'G', rating: 4, extra: [] }]);
  });

  it.each(words('reviews review_count reviews_count reviewCount reviewsCount count total total_reviews totalReviews num_reviews'))(
    "a source's reviews: %s",
    (name) => {
      expect(auditView({ sources: [{ source: 'G', [name]: 9 }] }).sources).toEqual([{ source: 'G', reviews: 9, extra: [] }]);
    },
  );
});

describe('pulse and search names', () => {
  it.each(
    words(
      'index market_index marketIndex pulse_index pulseIndex pulse mean mean_score meanScore average average_score averageScore avg value score reputation_index',
    ),
  )('the pulse index: %s', (name) => {
    expect(pulseView({ [name]: 50 })).toEqual({ index: 50, details: [], paths: { index: name } });
  });

  it.each([
    ...words('company companies business businesses organization organizations organisation organisations firm firms').map((key) => [key, 'company']),
    ...words('city cities town towns location locations').map((key) => [key, 'city']),
    ...words('category categories').map((key) => [key, 'category']),
  ])('the group %s is %s', async (key, type) => {
    const views = await freshViews();
    expect(views.searchView({ [key]: [{ name: 'x' }] }).groups).toEqual([{ type, rows: [{ name: 'x' }] }]);
  });

  it.each(words('results items matches hits data entries records'))('a flat list of results: %s', (name) => {
    expect(searchView({ [name]: [{ type: 'city', name: 'x' }] }).groups).toEqual([{ type: 'city', rows: [{ name: 'x' }] }]);
  });

  it.each(words('type kind entity_type entityType result_type resultType entity object _type'))("a result's type word: %s", (name) => {
    expect(searchView({ results: [{ [name]: 'city', name: 'x' }] }).groups.map((group) => group.type)).toEqual(['city']);
  });

  it.each(words('query q term search text'))('the echoed query: %s', (name) => {
    expect(searchView({ [name]: 'cof', companies: [] }).query).toBe('cof');
  });
});
