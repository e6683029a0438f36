// The views: each endpoint's body, whatever its shape, as one typed view that every output format
// (and the library) reads. Shape tolerance lives here only; the names it looks for are in aliases.ts.
import { auditView, type AuditView } from './audit.js';
import { pulseView, type PulseView } from './pulse.js';
import { searchView, type SearchView } from './search.js';

export { auditView, type AuditView, type SourceRow } from './audit.js';
export { pulseView, type PulseView } from './pulse.js';
export { searchView, type SearchGroup, type SearchView } from './search.js';
export type { DetailRow } from './fields.js';

/** The API's endpoints: a view each. */
export type Endpoint = 'audit' | 'search' | 'pulse';

/** An endpoint's view, tagged with the endpoint so a renderer knows which it holds. */
export type EndpointView = { endpoint: 'audit'; view: AuditView } | { endpoint: 'search'; view: SearchView } | { endpoint: 'pulse'; view: PulseView };

/** The one place a body becomes its endpoint's view. */
export function viewOf(endpoint: Endpoint, body: unknown): EndpointView {
  switch (endpoint) {
    case 'audit':
      return { endpoint, view: auditView(body) };
    case 'search':
      return { endpoint, view: searchView(body) };
    case 'pulse':
      return { endpoint, view: pulseView(body) };
  }
}

/** Where the view read each field, a line each, for `--debug`: `score read from data.current.score`. */
export function fieldPaths(answer: EndpointView): string[] {
  if (answer.endpoint === 'search') return [];
  const lines = Object.entries(answer.view.paths).map(([field, path]) => `${field} read from ${path}`);
  const also = answer.endpoint === 'audit' ? Object.entries(answer.view.alsoFound ?? {}) : [];
  return [...lines, ...also.map(([field, others]) => `${field} also found at ${others.join(', ')}`)];
}
