import { crc32 } from 'node:zlib';

/*
 * Every script touches one Redis Cluster hash slot (docs/architecture.md#past-one-machine): an account's keys
 * share a hash tag, and the indexes its scripts touch beside them (leases, the outbox, idle lines)
 * sit under the same tag, one set per shard. Two layouts name them:
 *
 * - `account` (QUOTA_KEY_LAYOUT's default, standalone Redis): the names of the releases before,
 *   so that an older replica beside a newer one on the same Redis shares counts, places, lines
 *   and leases. An account's keys are under `{accountId}`; the one "shard" is the global
 *   `{leases}`, `{outbox}` and `{credit}` keys, so a script spans several slots, which only a
 *   standalone Redis allows.
 * - `shard` (Redis Cluster): SHARD_COUNT shards, shard k under the tag `{s<k>}`: the account's
 *   keys `{s<k>}:a:<accountId>:...` beside the shard's `{s<k>}:leases:*`, `{s<k>}:outbox:settles`
 *   and `{s<k>}:credit:active`, so each script's keys are in one slot.
 *
 * The free tier's pool and settings are in `{freetier}` in both: a free request takes a second
 * script for them anyway.
 */

/** QUOTA_KEY_LAYOUT: how the keys are named (see above). */
export type KeyLayout = 'account' | 'shard';

/**
 * The shards of the `shard` layout. 64 spreads a cluster over up to 64 primaries (the
 * throughput targets need one Redis; a cluster of a few primaries gets 10 to 22 shards each), while every
 * background pass (reaper, forwarder, idle lines, outbox gauges) sends one command per shard it
 * looks at, pipelined (the passes look only at the shards that can have work: ShardDueTimes,
 * RedisBillOutbox). Fixed: another count names every account's keys anew (a key migration).
 */
export const SHARD_COUNT = 64;

/** The index of an account's shard: CRC-32 (zlib, as `zlib.crc32` anywhere) of its id's UTF-8 bytes, mod SHARD_COUNT. */
export function shardOf(accountId: string): number {
  return crc32(accountId) % SHARD_COUNT;
}

/** The leases of running requests of one shard. */
export interface LeaseKeys {
  /** Sorted set {request id: lapse ms}. */
  lapse: string;
  /** Hash {request id: JSON of the last renewal}. */
  data: string;
}

/** The indexes of one shard, beside its accounts' keys (in their slot in the shard layout). */
export interface ShardKeys {
  /** 0 to shards - 1. */
  index: number;
  leases: LeaseKeys;
  /** Stream of bills and line returns waiting for billing-service (consumer group `billing`). */
  outbox: string;
  /** Sorted set {account id: ms of its last paid admission or line grant}: the credit lines that may be idle. */
  activeLines: string;
}

/** The Redis keys of one account, and of the shard it is in. */
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
   * running requests (the holds of `admissions`). Available = gr - ch - rt - hd. No expiry.
   */
  credit: string;
  /**
   * Hash {request id: micro-LYD, request id + ':tokens': tokens, request id + ':terms': its
   * admission record}: the charge (0 when free), the tokens and the terms of each request the
   * reaper finished from an estimate in the last hour, for the real bill that may correct it.
   */
  lapseEstimates: string;
  /**
   * Hash {request id: JSON of its admission terms (payment, model, hold, max_tokens, admittedAtMs)}
   * of each running request: what Admit fixed, read by every step that later moves the request's
   * money, and a paid request's hold (`hold.amountMicro`), whose sum over the hash is `hd`. A lease
   * recreated after the store lost it holds its hold in a record of that alone,
   * `{"hold":{"amountMicro":...}}`. Deleted with its finish (an estimate's moves to
   * `lapseEstimates`). No expiry.
   */
  admissions: string;
  /** Hash {request id: micro-LYD}: the previous release's holds (previous-release-holds.ts). */
  previousReleaseHolds: string;
  /**
   * Hash {request id: 1}: the requests whose bill FINISH queued and billing-service has not yet
   * applied (the forwarder deletes a delivered bill's field), so that a final lease renewal can
   * tell a bill waiting from one applied (docs/architecture.md#nothing-lost-when-a-process-dies). No expiry.
   */
  unbilled: string;
  /** The indexes of the account's shard. */
  shard: ShardKeys;
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

/** The names of every key quota-service keeps in Redis, in one layout under one prefix (REDIS_KEY_PREFIX). */
export interface RedisKeys {
  layout: KeyLayout;
  /** Every shard, for the loops that walk them: one in the account layout, SHARD_COUNT in the shard layout. */
  shards: readonly ShardKeys[];
  /** The keys of an account, its shard's with them. */
  account(accountId: string): AccountKeys;
  /** The shard whose indexes hold the account's leases, bills and idle line. */
  shardOfAccount(accountId: string): ShardKeys;
  freeTier: FreeTierKeys;
}

function accountKeysAt(base: string, shard: ShardKeys): AccountKeys {
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
    lapseEstimates: `${base}credit:estimates`,
    admissions: `${base}admissions`,
    previousReleaseHolds: `${base}credit:holds`,
    unbilled: `${base}credit:unbilled`,
    shard,
  };
}

function freeTierKeys(prefix: string): FreeTierKeys {
  const base = `${prefix}{freetier}:`;
  return Object.freeze({
    settings: `${base}settings`,
    poolBudget: `${base}pool`,
    poolHolds: `${base}pool:holds`,
    poolExpiry: `${base}pool:expiry`,
  });
}

const shardKeys = (index: number, leases: string, outbox: string, activeLines: string): ShardKeys =>
  Object.freeze({ index, leases: Object.freeze({ lapse: `${leases}lapse`, data: `${leases}data` }), outbox, activeLines });

/** The key names of `layout` under `prefix` (which must hold no `{`, or it would be taken for the hash tag). */
export function redisKeys(layout: KeyLayout, prefix: string): RedisKeys {
  const freeTier = freeTierKeys(prefix);
  if (layout === 'account') {
    const only = shardKeys(0, `${prefix}{leases}:`, `${prefix}{outbox}:settles`, `${prefix}{credit}:active`);
    return { layout, shards: [only], account: (id) => accountKeysAt(`${prefix}{${id}}:`, only), shardOfAccount: () => only, freeTier };
  }
  const shards = Array.from({ length: SHARD_COUNT }, (_, k) =>
    shardKeys(k, `${prefix}{s${k}}:leases:`, `${prefix}{s${k}}:outbox:settles`, `${prefix}{s${k}}:credit:active`),
  );
  return {
    layout,
    shards,
    account: (id) => {
      const k = shardOf(id);
      return accountKeysAt(`${prefix}{s${k}}:a:${id}:`, shards[k]);
    },
    shardOfAccount: (id) => shards[shardOf(id)],
    freeTier,
  };
}

/**
 * The account whose key `key` is, when it is the account key ending in `:${suffix}` of `keys`
 * (the name SCAN found), else undefined: the name is rebuilt from the id found, so that only a
 * key this layout names is taken.
 */
export function accountOfKey(keys: RedisKeys, prefix: string, key: string, suffix: 'credit' | 'places'): string | undefined {
  if (!key.startsWith(prefix) || !key.endsWith(`:${suffix}`)) return undefined;
  const name = key.slice(prefix.length, key.length - suffix.length - 1);
  const id = keys.layout === 'account' ? /^\{(.+)\}$/.exec(name)?.[1] : /^\{s\d+\}:a:(.+)$/.exec(name)?.[1];
  if (id === undefined) return undefined;
  const named = keys.account(id);
  return (suffix === 'credit' ? named.credit : named.places) === key ? id : undefined;
}
