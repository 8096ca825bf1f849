/** What the Authorization header gave: a key to look up, or why there is none (docs/api.md#authentication). */
export type BearerKey = { kind: 'key'; key: string } | { kind: 'missing' };

// "Bearer" in any letter case, one or more spaces, then the key with no space inside.
const BEARER = /^bearer +(\S+)$/i;

/**
 * Reads the key from an Authorization header exactly as docs/api.md#authentication says: missing header,
 * another scheme, an empty key or a space inside the key give `missing` (MISSING_API_KEY).
 */
export function parseAuthorization(header: string | undefined): BearerKey {
  if (header === undefined) return { kind: 'missing' };
  const match = BEARER.exec(header);
  return match ? { kind: 'key', key: match[1] } : { kind: 'missing' };
}
