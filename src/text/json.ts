// JSON as rep reads it, from the server and from its own files: one parse, one record test.

export type JsonRecord = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses JSON text, a leading byte-order mark ignored (editors on Windows write one). Throws SyntaxError. */
export function parseJson(text: string): unknown {
  return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
}
