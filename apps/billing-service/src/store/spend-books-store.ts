import { Queryable } from '@gw/service-kit';
import { SpendBucket, UsualSpend } from '@gw/money';
import { AccountSpendRead, KeyedCharge } from './spend-records';

/**
 * Each key's spend over time, kept as bills are applied (migration 048): 5-minute and hourly
 * buckets, each key's wakes after a rest, each account's usual hour as last read. Every method
 * but `prune` runs in the transaction of the batch of bills (`tx`).
 */
export interface SpendBooksStore {
  /** Adds a batch's charges to their buckets, and records the keys that woke after an hour or more without a bill. */
  record(tx: Queryable, charges: readonly KeyedCharge[]): Promise<void>;
  /**
   * What the rule reads of each account at `nowMs`: the buckets of the slots from `recentFromMs`,
   * the wakes since `wokeAfterMs`, the alerts still open, raised after `raisedAfterMs` or of idle
   * keys, and the usual hour last read.
   */
  read(
    tx: Queryable,
    accountIds: readonly string[],
    window: { recentFromMs: number; wokeAfterMs: number; raisedAfterMs: number },
  ): Promise<Map<string, AccountSpendRead>>;
  /** The hourly buckets of each account from `fromMs` to before `toMs`. */
  history(tx: Queryable, accountIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, SpendBucket[]>>;
  /** Keeps each account's usual hour as read now. */
  keepUsual(tx: Queryable, usual: ReadonlyMap<string, UsualSpend>): Promise<void>;
  /** Drops the 5-minute buckets before `slotsBeforeMs` and the hourly ones before `hoursBeforeMs`. */
  prune(slotsBeforeMs: number, hoursBeforeMs: number): Promise<void>;
}
