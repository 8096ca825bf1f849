import { MAX_KEY_USES_PER_CALL, MAX_MODEL_ID_LENGTH } from '@gw/bounds';
import { requireCount, requireId } from '@gw/service-kit';
import { DomainError } from '@gw/errors';

/**
 * The bounds of auth.v1's fields that are not ids or names (ids: service-kit's requireId; names:
 * display-name.ts). Past each, INVALID_ARGUMENT, before anything is read or changed.
 */

/** The longest suspension reason, in characters: a sentence or two shown to the account's holder. */
export const MAX_REASON_LENGTH = 500;

/** The longest `until` text: an ISO-8601 time with milliseconds and an offset is under 32. */
const MAX_TIME_TEXT_LENGTH = 64;

/** The latest time kept: the end of year 9999, the last an ISO-8601 year of four digits writes. */
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const KEY_SHA256 = /^[0-9a-f]{64}$/;

/** A model id of the catalogue, as asked for (GrantModel, GetModel). */
export const requireModelId = (field: string, id: string): string => requireId(field, id, MAX_MODEL_ID_LENGTH);

/** The lower-case hex SHA-256 of a key: 64 characters from 0-9 and a-f. */
export function requireKeyDigest(keySha256: string): string {
  if (!KEY_SHA256.test(keySha256)) throw new DomainError('invalid-argument', 'key_sha256 must be 64 lower-case hex digits');
  return keySha256;
}

/** A suspension's end: empty for none, else an ISO-8601 time from 1970 to the end of 9999. */
export function suspensionEnd(until: string): Date | null {
  if (!until) return null;
  const end = until.length <= MAX_TIME_TEXT_LENGTH ? new Date(until) : new Date(NaN);
  if (Number.isNaN(end.getTime()))
    throw new DomainError('invalid-argument', `until is not an ISO-8601 time: ${until.slice(0, MAX_TIME_TEXT_LENGTH)}`);
  if (end.getTime() < 0 || end.getTime() > LATEST_MS)
    throw new DomainError('invalid-argument', 'until must be a time from 1970 to the end of 9999');
  return end;
}

/** A suspension's reason: at most MAX_REASON_LENGTH characters, no NUL (Postgres cannot store one). */
export function suspensionReason(reason: string): string {
  if ([...reason].length > MAX_REASON_LENGTH)
    throw new DomainError('invalid-argument', `reason longer than ${MAX_REASON_LENGTH} characters`);
  if (reason.includes('\u0000')) throw new DomainError('invalid-argument', 'reason cannot hold a NUL character');
  return reason;
}

/** Key uses of one RecordKeyUses: at most MAX_KEY_USES_PER_CALL, each of a key id at a time from 1970 to the end of 9999. */
export function requireKeyUses(uses: { keyId: string; usedAtUnixMs: number }[]): { keyId: string; at: Date }[] {
  if (uses.length > MAX_KEY_USES_PER_CALL)
    throw new DomainError('invalid-argument', `at most ${MAX_KEY_USES_PER_CALL} key uses in one call`);
  return uses.map((use) => ({
    keyId: requireId('key_id', use.keyId),
    at: new Date(requireCount('used_at_unix_ms', use.usedAtUnixMs, LATEST_MS)),
  }));
}
