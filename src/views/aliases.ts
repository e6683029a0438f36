// Which keys mean what, in the one table the views read. The service documents none of its bodies,
// so each field is found by the names public reputation and places APIs give it; within a list the
// earlier name wins. Each line says where its names come from.

/** The company's score, as a number (or a numeric string) or a record holding one (SCORE_INSIDE). */
export const SCORE = [
  'reputation_score', 'reputationScore', 'reputation', // rep's own service (its Reputation Score)
  'score', //                                             the sandbox
  'overall_score', 'overallScore', 'overall', //          review aggregators' overall figure
  'rating', //                                            Google Places, Yelp Fusion
] as const;

/** Inside a score record, the number itself. */
export const SCORE_INSIDE = [
  'value', 'score', //                                    generic `{ "value": 4.2, "max": 5 }`
  'current', 'overall', 'rating', //                      generic
] as const;

/** The scale beside the score, in the record that holds it. */
export const SCALE = [
  'score_scale', 'scoreScale', 'score_max', 'scoreMax', // the sandbox (`score_scale`)
  'max_score', 'maxScore', 'scale', 'out_of', 'outOf', 'max', // generic
] as const;

/** The scale inside a score record. */
export const SCALE_INSIDE = ['max', 'scale', 'out_of', 'outOf', 'max_value', 'maxValue', 'best'] as const; // generic

/** The company's name, as text. */
export const NAME = [
  'name', //                                              the sandbox; Yelp Fusion; Google Places (legacy)
  'company_name', 'companyName', //                       generic
  'display_name', 'displayName', //                       Trustpilot
  'title', 'legal_name', //                               generic
] as const;

/** A record under one of these keys is the company itself: its name wins over a name beside it. */
export const COMPANY = ['company', 'business', 'organization', 'organisation', 'entity'] as const; // the sandbox (`company`); generic

/** Envelopes servers wrap a payload in, tried in this order; fields beside them (`meta`, `links`) stay details. */
export const ENVELOPES = [
  'data', 'result', 'response', 'payload', //             JSON:API (`data`), Google Places legacy (`result`), most REST APIs
  'attributes', //                                        JSON:API resource object
  'body', 'content', //                                   generic
] as const;

/** Keys that name the per-source summary plainly: any array or map under them is taken as sources. */
export const SOURCES = [
  'sources', 'by_source', 'bySource', //                  the sandbox (`sources`); generic
  'sources_summary', 'sourcesSummary', 'source_summary', // generic
  'platforms', //                                         review aggregators
  'reviews_by_source', 'reviewsBySource', //              generic
] as const;

/** Keys that may hold sources or something else: taken only when the entries look like sources. */
export const SOURCES_LOOSE = ['summary', 'breakdown', 'ratings', 'channels', 'sites'] as const; // generic

/** In a source record: its name, its rating, its number of reviews. */
export const SOURCE_NAME = [
  'source', 'name', //                                    the sandbox (`source`)
  'platform', 'provider', 'site', 'source_name', 'sourceName', 'title', 'channel', // generic
] as const;
export const SOURCE_RATING = [
  'rating', //                                            the sandbox; Google Places, Yelp Fusion
  'score', 'avg', 'average', 'avg_rating', 'average_rating', 'averageRating', // generic
  'stars', //                                             Yelp Open Dataset; Trustpilot
  'value', //                                             generic
] as const;
export const SOURCE_REVIEWS = [
  'reviews', //                                           the sandbox
  'review_count', 'reviews_count', 'reviewCount', 'reviewsCount', // Yelp Fusion (`review_count`); schema.org (`reviewCount`)
  'count', 'total', 'total_reviews', 'totalReviews', 'num_reviews', // generic
] as const;

/** The pulse's market index, as a number or a record holding one (searched a few levels down). */
export const INDEX = [
  'index', 'market_index', 'marketIndex', 'pulse_index', 'pulseIndex', 'pulse', // the sandbox (`index`)
  'mean', 'mean_score', 'meanScore', 'average', 'average_score', 'averageScore', 'avg', // generic means
  'value', 'score', 'reputation_index', //                generic
] as const;

/** Search: a group's key, or a result's type word, and the group it means. */
export const SEARCH_GROUPS: Readonly<Record<string, string>> = {
  company: 'company', companies: 'company', business: 'company', businesses: 'company', // the sandbox (`companies`); Yelp Fusion (`businesses`)
  organization: 'company', organizations: 'company', organisation: 'company', organisations: 'company', firm: 'company', firms: 'company', // generic
  city: 'city', cities: 'city', town: 'city', towns: 'city', location: 'city', locations: 'city', // the sandbox (`cities`); generic
  category: 'category', categories: 'category', //       the sandbox; Yelp Fusion (`categories`)
};

/** Search: lists of results of mixed types, each result saying its type. */
export const SEARCH_LISTS = ['results', 'items', 'matches', 'hits', 'data', 'entries', 'records'] as const; // generic; Algolia (`hits`)
/** Search: the word on a result that says its type. */
export const SEARCH_TYPE = ['type', 'kind', 'entity_type', 'entityType', 'result_type', 'resultType', 'object', '_type', 'entity'] as const; // JSON:API (`type`); Stripe (`object`); Elasticsearch (`_type`)
/** Search: the query as the server echoed it. */
export const SEARCH_QUERY = ['query', 'q', 'term', 'search', 'text'] as const; // the sandbox (`query`); generic
