import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new secret and the only form of it that is stored. */
export interface SecretToken {
  /** 32 random bytes as base64url (43 characters): given to the client, never stored. */
  token: string;
  /** Lower-case hex SHA-256 of `token`: what is stored and looked up. */
  sha256: string;
}

/** Lower-case hex SHA-256 of a token's UTF-8 text: how a presented token is looked up. */
export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Makes a new unguessable secret for a session id, invite link or CSRF token. */
export function newSecretToken(): SecretToken {
  const token = randomBytes(32).toString('base64url');
  return { token, sha256: sha256Hex(token) };
}

/**
 * Whether a presented secret (`b`, e.g. a CSRF form field of any type) equals the expected one
 * (`a`), compared in constant time so the comparison does not reveal how much of it matched.
 */
export function sameSecret(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // timingSafeEqual throws on unequal lengths; the length of a token is not a secret.
  return left.length === right.length && timingSafeEqual(left, right);
}
