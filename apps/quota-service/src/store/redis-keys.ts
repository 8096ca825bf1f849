/** The Redis keys of one account. */
export interface AccountKeys {
  /** Hash {minute, count}: requests counted in the current UTC minute. */
  minute: string;
  /** Hash {request id: grant time ms}: the places held. */
  places: string;
  /** String: time (ms) of the last place granted. */
  lastGrant: string;
  /** Hash {day, tokens}: tokens used on the UTC day `day`. */
  usageToday: string;
  /** String: all-time tokens. */
  usageTotal: string;
}

/**
 * Keys of an account, all under one hash tag `{accountId}` so that they share a Redis Cluster
 * slot and one script may touch them together.
 */
export function accountKeys(prefix: string, accountId: string): AccountKeys {
  const base = `${prefix}{${accountId}}:`;
  return {
    minute: `${base}rpm`,
    places: `${base}places`,
    lastGrant: `${base}places:last`,
    usageToday: `${base}usage:today`,
    usageTotal: `${base}usage:total`,
  };
}
