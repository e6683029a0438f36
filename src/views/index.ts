// Body → typed view, once per endpoint. Placeholder while src/views/ is being written (issue 11, part B):
// today's view functions from output/, under the names the library exports; part B's file replaces this one.
export { auditView, pulseView, type AuditView, type DetailRow, type PulseView, type SourceRow } from '../output/shape.js';
export { searchView, type SearchGroup, type SearchView } from '../output/search-shape.js';
