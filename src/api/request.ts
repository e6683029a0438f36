// What a request carries besides its URL (base-url.ts), checked before anything is sent: the key,
// sendable as a header and masked wherever it is shown, in every line and body the client describes.
import { UsageError } from './errors.js';

/** Replaces the key with its mask in a text: every line the client describes passes through one. */
export type Redact = (text: string) => string;

/**
 * A key must be sendable as a header value: printable ASCII without spaces. Checked before sending,
 * so a pasted stray character is a clear usage error, not a failure deep in the HTTP library.
 */
export function checkKey(key: string, from: string): string {
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(`the API key from ${from} has characters an API key cannot have (spaces, controls or non-ASCII)`, {
      hint: 'copy the key again from your account on the service',
    });
  }
  return key;
}

/** The key as it may be shown: its last 4 characters at most (none when the key is short). */
export function maskKey(key: string): string {
  return key.length >= 12 ? `****${key.slice(-4)}` : '****';
}

/** A Redact that replaces every occurrence of the key with its mask. */
export function keyRedactor(key: string | undefined): Redact {
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
      if (typeof value === 'string')
        record[name] = redact(value); // an own `__proto__` field is set as a field
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
