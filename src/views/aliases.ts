// Which keys mean what, in the one table the views read. The service documents none of its bodies,
// so each field is found by the names public reputation and places APIs give it; within a list the
// earlier name wins (views/audit.ts says where it looks). Each line says where its names come from,
// and each rule has a test with a body in that API's shape (test/views-aliases.test.ts).

/** The company's score, as a number (or a numeric string) or a record holding one (SCORE_INSIDE). */
export const SCORE = [
  'reputation_score',
  'reputationScore',
  'reputation', // rep's own service (its Reputation Score)
  'score', //                                             the sandbox; Trustpilot business unit (`score: { trustScore, stars }`)
  'trustScore',
  'trust_score', //                         Trustpilot business unit, flat
  'overall_score',
  'overallScore',
  'overall', //          review aggregators' overall figure
  'aggregateRating',
  'aggregate_rating', //               schema.org AggregateRating (JSON-LD on business pages)
  'rating', //                                            Google Places API (New) and legacy, Yelp Fusion
  'stars', //                                             Yelp Open Dataset; Trustpilot
] as const;

/** Inside a score record, the number itself: the most specific name first, so `trustScore` wins over `stars`. */
export const SCORE_INSIDE = [
  'value',
  'score', //                                    generic `{ "value": 4.2, "max": 5 }`
  'trustScore',
  'trust_score', //                         Trustpilot `score: { trustScore, stars }`
  'ratingValue',
  'rating_value', //                       schema.org AggregateRating
  'current',
  'latest',
  'overall', //                      a score split by time: the present only (never PAST)
  'rating',
  'average',
  'avg',
  'mean', //                  generic
  'stars', //                                             Trustpilot `score.stars` (the TrustScore rounded to half stars)
] as const;

/** The scale beside the score, in the record that holds it. */
export const SCALE = [
  'score_scale',
  'scoreScale',
  'score_max',
  'scoreMax', // the sandbox (`score_scale`)
  'max_score',
  'maxScore',
  'scale',
  'out_of',
  'outOf',
  'max', // generic
] as const;

/** The scale inside a score record. */
export const SCALE_INSIDE = [
  'max',
  'scale',
  'out_of',
  'outOf',
  'max_value',
  'maxValue',
  'best', // generic `{ "value": 4.2, "max": 5 }`
  'bestRating',
  'best_rating', //                         schema.org AggregateRating
] as const;

/** A score read under one of these names has this scale when the body gives none. */
export const IMPLIED_SCALE: Readonly<Record<string, number>> = {
  stars: 5, //                                            a star rating is out of five (Yelp Open Dataset, Trustpilot)
};

/** The company's total number of reviews, as a number or a record holding one (REVIEWS_INSIDE). */
export const REVIEWS = [
  'review_count',
  'reviews_count',
  'reviewCount',
  'reviewsCount', // Yelp Fusion (`review_count`); schema.org (`reviewCount`)
  'userRatingCount', //                                   Google Places API (New)
  'user_ratings_total',
  'userRatingsTotal', //            Google Places API (legacy)
  'numberOfReviews',
  'number_of_reviews', //              Trustpilot business unit (`numberOfReviews: { total }`)
  'rating_count',
  'ratingCount',
  'ratings_count', //      schema.org AggregateRating (`ratingCount`); app stores
  'total_reviews',
  'totalReviews',
  'num_reviews', //      generic
  'reviews', //                                           generic, when a number (a list of reviews stays a detail)
] as const;
// Not `reviews_total`: the sandbox's, the sum of its sources' reviews, which the source rows show.

/** Inside a review-count record, the total. */
export const REVIEWS_INSIDE = ['total', 'count', 'value'] as const; // Trustpilot `numberOfReviews.total`; generic

/** The company's name, as text or a record holding it (NAME_INSIDE). */
export const NAME = [
  'name', //                                              the sandbox; Yelp Fusion; Google Places API (legacy)
  'company_name',
  'companyName', //                       generic
  'display_name',
  'displayName', //                       Google Places API (New) (`displayName.text`); Trustpilot
  'title',
  'legal_name', //                               generic
] as const;

/** Inside a name record, the name itself. */
export const NAME_INSIDE = [
  'text', //                                              Google Places API (New) LocalizedText `{ text, languageCode }`
  'display', //                                           Trustpilot `name: { display, identifying }`
] as const;

/** A record under one of these keys is the company itself: its name wins over a name beside it. */
export const COMPANY = [
  'company',
  'business',
  'organization',
  'organisation',
  'entity', // the sandbox (`company`); generic
  'businessUnit', //                                      Trustpilot
  'place', //                                             Google Places
] as const;

/** A list under one of these keys holding exactly one record: that record is the company. */
export const COMPANY_LISTS = [
  'businesses', //                                        Yelp Fusion Business Search
  'places', //                                            Google Places API (New) Text Search
  'results',
  'candidates', //                             Google Places API (legacy) Text Search, Find Place
  'businessUnits', //                                     Trustpilot find business units
  'companies',
  'items',
  'data', //                        generic; JSON:API collection (`data: [ … ]`)
] as const;

/** A record under one of these keys describes the present: the company's fields may sit in it. */
export const PRESENT = [
  'current',
  'latest',
  'now',
  'today', //                 score services with a current/history split
  'summary',
  'stats',
  'statistics', //                    aggregate blocks (`summary` may hold sources instead)
  'this_period',
  'thisPeriod',
  'current_period',
  'currentPeriod', // period reports
] as const;
// `overall` is a SCORE name: a record under it is read as the score's record.

/** What describes the past: never read for a field, whatever it holds; it stays a detail. */
export const PAST = [
  'history',
  'historical',
  'previous',
  'prev',
  'past',
  'prior', // score services with a current/history split
  'trend',
  'trends',
  'timeline',
  'series',
  'changes',
  'archive', // time series
] as const;

/** Envelopes servers wrap a payload in, tried in this order; fields beside them (`meta`, `links`) stay details. */
export const ENVELOPES = [
  'data',
  'result',
  'response',
  'payload', //             JSON:API (`data`), Google Places legacy (`result`), most REST APIs
  'attributes', //                                        JSON:API resource object
  'body',
  'content', //                                   generic
] as const;

/** Keys that name the per-source summary plainly: any array or map under them is taken as sources. */
export const SOURCES = [
  'sources',
  'by_source',
  'bySource', //                  the sandbox (`sources`); generic
  'sources_summary',
  'sourcesSummary',
  'source_summary', // generic
  'platforms', //                                         review aggregators
  'reviews_by_source',
  'reviewsBySource', //              generic
] as const;

/** Keys that may hold sources or something else: taken only when the entries look like sources. */
export const SOURCES_LOOSE = ['summary', 'breakdown', 'ratings', 'channels', 'sites'] as const; // generic

/** In a source record: its name, its rating, its number of reviews. */
export const SOURCE_NAME = [
  'source',
  'name', //                                    the sandbox (`source`)
  'platform',
  'provider',
  'site',
  'source_name',
  'sourceName',
  'title',
  'channel', // generic
] as const;
export const SOURCE_RATING = [
  'rating', //                                            the sandbox; Google Places, Yelp Fusion
  'score',
  'avg',
  'average',
  'avg_rating',
  'average_rating',
  'averageRating', // generic
  'stars', //                                             Yelp Open Dataset; Trustpilot
  'value', //                                             generic
] as const;
export const SOURCE_REVIEWS = [
  'reviews', //                                           the sandbox
  'review_count',
  'reviews_count',
  'reviewCount',
  'reviewsCount', // Yelp Fusion (`review_count`); schema.org (`reviewCount`)
  'count',
  'total',
  'total_reviews',
  'totalReviews',
  'num_reviews', // generic
] as const;

/** The pulse's market index, as a number or a record holding one (searched a few levels down). */
export const INDEX = [
  'index',
  'market_index',
  'marketIndex',
  'pulse_index',
  'pulseIndex',
  'pulse', // the sandbox (`index`)
  'mean',
  'mean_score',
  'meanScore',
  'average',
  'average_score',
  'averageScore',
  'avg', // generic means
  'value',
  'score',
  'reputation_index', //                generic
] as const;

/** Search: a group's key, or a result's type word, and the group it means. */
export const SEARCH_GROUPS: Readonly<Record<string, string>> = {
  company: 'company',
  companies: 'company',
  business: 'company',
  businesses: 'company', // the sandbox (`companies`); Yelp Fusion (`businesses`)
  organization: 'company',
  organizations: 'company',
  organisation: 'company',
  organisations: 'company',
  firm: 'company',
  firms: 'company', // generic
  city: 'city',
  cities: 'city',
  town: 'city',
  towns: 'city',
  location: 'city',
  locations: 'city', // the sandbox (`cities`); generic
  category: 'category',
  categories: 'category', //       the sandbox; Yelp Fusion (`categories`)
};

/** Search: lists of results of mixed types, each result saying its type. */
export const SEARCH_LISTS = ['results', 'items', 'matches', 'hits', 'data', 'entries', 'records'] as const; // generic; Algolia (`hits`)
/** Search: the word on a result that says its type. */
export const SEARCH_TYPE = [
  'type',
  'kind',
  'entity_type',
  'entityType',
  'result_type',
  'resultType',
  'entity', // JSON:API (`type`); generic
  'object', //                                            Stripe
  '_type', //                                             Elasticsearch
] as const;
/** Search: the query as the server echoed it. */
export const SEARCH_QUERY = ['query', 'q', 'term', 'search', 'text'] as const; // the sandbox (`query`); generic
