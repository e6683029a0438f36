// The views: each endpoint's body, whatever its shape, as one typed view that every output format
// (and the library) reads. Shape tolerance lives here only; the names it looks for are in aliases.ts.
export { auditView, type AuditView, type SourceRow } from './audit.js';
export { pulseView, type PulseView } from './pulse.js';
export { searchView, type SearchGroup, type SearchView } from './search.js';
export type { DetailRow } from './fields.js';
