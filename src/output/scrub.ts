// Scrubbing lives in src/text/scrub.ts (the library's errors use it too); renderers keep this import.
export { scrubLine, scrubText } from '../text/scrub.js';
