import { createHash, randomBytes } from 'node:crypto';

/** Every key starts with this; the rest is 40 hex characters from a cryptographic source. */
export const KEY_PREFIX = 'sk-shfr-';
/** How many leading characters of a key are kept and shown. */
export const SHOWN_PREFIX_LENGTH = 12;

/** A new key as created: the value is shown once and then forgotten. */
export interface NewApiKey {
  value: string;
  sha256: string;
  prefix: string;
}

/** Lower-case hex SHA-256 of a key: the only form in which keys are kept. */
export function sha256Hex(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Makes a new key: `sk-shfr-` and 40 characters of 0-9a-f. */
export function generateApiKey(): NewApiKey {
  const value = KEY_PREFIX + randomBytes(20).toString('hex');
  return { value, sha256: sha256Hex(value), prefix: value.slice(0, SHOWN_PREFIX_LENGTH) };
}
