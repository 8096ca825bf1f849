import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const MIN_PASSWORD_LENGTH = 10;
const MAX_PASSWORD_LENGTH = 256;
// Bounds on parameters read back from storage, so a damaged or tampered row cannot make one
// sign-in take unbounded memory or time.
const MAX_COST = 2 ** 20;
const MAX_BLOCK_SIZE = 64;
const MAX_PARALLELISM = 16;
const MAX_MEMORY = 512 * 1024 * 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

interface ScryptParams {
  cost: number;
  blockSize: number;
  parallelism: number;
}

/** scrypt as a promise; errors (bad parameters included) reject rather than throw. */
function derive(password: string, salt: Buffer, keyLength: number, params: ScryptParams): Promise<Buffer> {
  const { cost: N, blockSize: r, parallelism: p } = params;
  // Node refuses when scrypt would need more than maxmem; size it to what the parameters need.
  const options: ScryptOptions = { N, r, p, maxmem: Math.max(64 * 1024 * 1024, 128 * r * (N + p + 2) + 1024 * 1024) };
  return new Promise((resolve, reject) => {
    try {
      // NFC, so the same password typed on systems that compose accents differently still matches.
      scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
    } catch (error) {
      reject(error);
    }
  });
}

/** Hashes a password for storage as `scrypt$N$r$p$<salt>$<hash>` (base64url), with a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const params = { cost: COST, blockSize: BLOCK_SIZE, parallelism: PARALLELISM };
  const hash = await derive(password, salt, KEY_BYTES, params);
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** A positive whole number written in plain decimal, or undefined. */
function positiveInteger(text: string, max: number): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const value = Number(text);
  return value <= max ? value : undefined;
}

/**
 * Whether `password` is the one `stored` (from hashPassword) was made from. Uses the parameters
 * written in `stored`, so older hashes still verify after the defaults change. Never throws: a
 * malformed stored value is simply false.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = typeof stored === 'string' ? stored.split('$') : [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, costText, blockText, parallelText, saltText, hashText] = parts;
  const cost = positiveInteger(costText, MAX_COST);
  const blockSize = positiveInteger(blockText, MAX_BLOCK_SIZE);
  const parallelism = positiveInteger(parallelText, MAX_PARALLELISM);
  if (cost === undefined || blockSize === undefined || parallelism === undefined) return false;
  if (cost < 2 || (cost & (cost - 1)) !== 0) return false;
  if (128 * blockSize * (cost + parallelism + 2) > MAX_MEMORY) return false;
  if (!BASE64URL.test(saltText) || !BASE64URL.test(hashText)) return false;
  const salt = Buffer.from(saltText, 'base64url');
  const expected = Buffer.from(hashText, 'base64url');
  if (salt.length < 8 || expected.length < 16 || expected.length > 64) return false;
  try {
    const actual = await derive(password, salt, expected.length, { cost, blockSize, parallelism });
    return timingSafeEqual(actual, expected);
  } catch {
    return false;
  }
}

/** Why a new password is refused, as a sentence to show the account holder, or undefined if it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  // Count characters as people see them (code points), not UTF-16 units.
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `Use a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `Use a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  return undefined;
}
