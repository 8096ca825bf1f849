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
  /** Sorted set {request id: ms}: requests finished in the last hour. */
  finished: string;
  /** Hash {day, used}: the free allowance used on the UTC day `day`, reservations included. */
  freeBudget: string;
  /** Hash {request id: tokens}: the free reservations of that day (0 once expired). */
  freeHolds: string;
  /** Sorted set {request id: expiry ms}: when each live free reservation expires. */
  freeExpiry: string;
  /**
   * Hash {gr, ch, rt, hd}: the account's credit line, cumulative micro-LYD: granted by
   * billing-service, charged by finished requests, returned to billing-service, and held now by
   * running requests. Available = gr - ch - rt - hd. No expiry.
   */
  credit: string;
  /** Hash {request id: micro-LYD}: the hold of each running paid request, whose sum is `hd`. */
  creditHolds: string;
  /** Hash {request id: micro-LYD}: the charge of each paid request the reaper finished from an estimate in the last hour. */
  lapseEstimates: string;
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
    finished: `${base}finished`,
    freeBudget: `${base}free`,
    freeHolds: `${base}free:holds`,
    freeExpiry: `${base}free:expiry`,
    credit: `${base}credit`,
    creditHolds: `${base}credit:holds`,
    lapseEstimates: `${base}credit:estimates`,
  };
}

/** The keys of the free tier as a whole, under one hash tag `{freetier}` (one slot, one script). */
export interface FreeTierKeys {
  /** Hash {daily_tokens, pool_tokens, paused, enabled}: the settings an operator changed. */
  settings: string;
  /** Hash {day, used}: the pool used on the UTC day `day`, reservations included. */
  poolBudget: string;
  /** Hash {account+request: tokens}: the pool's reservations of that day (0 once expired). */
  poolHolds: string;
  /** Sorted set {account+request: expiry ms}. */
  poolExpiry: string;
}

/** The free tier's global keys. */
export function freeTierKeys(prefix: string): FreeTierKeys {
  const base = `${prefix}{freetier}:`;
  return { settings: `${base}settings`, poolBudget: `${base}pool`, poolHolds: `${base}pool:holds`, poolExpiry: `${base}pool:expiry` };
}

/** The stream of bills waiting for billing-service (its own slot). */
export function settleOutboxKey(prefix: string): string {
  return `${prefix}{outbox}:settles`;
}

/** The leases of running requests, under one hash tag `{leases}` (one slot, one script). */
export interface LeaseKeys {
  /** Sorted set {request id: lapse ms}. */
  lapse: string;
  /** Hash {request id: JSON of the last renewal}. */
  data: string;
}

/** The lease keys. */
export function leaseKeys(prefix: string): LeaseKeys {
  const base = `${prefix}{leases}:`;
  return { lapse: `${base}lapse`, data: `${base}data` };
}

/** Sorted set {account id: ms of its last paid admission or line grant}: the credit lines that may be idle. */
export function activeLinesKey(prefix: string): string {
  return `${prefix}{credit}:active`;
}
