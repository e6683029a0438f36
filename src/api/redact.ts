// Redaction at the source: every line the client describes passes through here, so no later log,
// warning or error can carry the key.

/** The key as it may be shown: its last 4 characters at most (none when the key is short). */
export function maskKey(key: string): string {
  return key.length >= 12 ? `****${key.slice(-4)}` : '****';
}

/** A function that replaces every occurrence of the key in a text with its mask. */
export function keyRedactor(key: string | undefined): (text: string) => string {
  if (!key) return (text) => text;
  const mask = maskKey(key);
  return (text) => (text.includes(key) ? text.split(key).join(mask) : text);
}

/**
 * A parsed JSON body with the key masked in every string value and field name, so no format can
 * print it. Walked without recursion; skipped when the raw text cannot hold the key (no escapes in it).
 */
export function redactBody(body: unknown, text: string, key: string | undefined): unknown {
  if (!key || (!text.includes(key) && !text.includes('\\'))) return body;
  const redact = keyRedactor(key);
  if (typeof body === 'string') return redact(body);
  const pending: unknown[] = [body];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (item === null || typeof item !== 'object') continue;
    const record = item as Record<string, unknown>;
    if (!Array.isArray(item) && Object.keys(record).some((name) => name.includes(key))) renameFields(record, redact);
    for (const name of Object.keys(record)) {
      const value = record[name];
      if (typeof value === 'string') record[name] = redact(value); // an own `__proto__` field is set as a field
      else pending.push(value);
    }
  }
  return body;
}

/** Renames fields in place, keeping their order; defineProperty, so a field named `__proto__` stays a field. */
function renameFields(record: Record<string, unknown>, redact: (text: string) => string): void {
  const entries = Object.entries(record);
  for (const [name] of entries) delete record[name];
  for (const [name, value] of entries) Object.defineProperty(record, redact(name), { value, enumerable: true, writable: true, configurable: true });
}
