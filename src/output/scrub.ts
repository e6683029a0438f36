// Scrubbing lives in src/text.ts (the library's errors use it too); renderers keep this import.
export { scrubLine, scrubText } from '../text.js';
