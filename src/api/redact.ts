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
