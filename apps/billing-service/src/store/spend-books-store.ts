import { Queryable } from '@gw/service-kit';
import { SpendBucket, UsualSpend } from '@gw/money';
import { AccountSpendRead, KeyedCharge } from './spend-records';

/**
 * Each key's spend over time, kept as bills are applied (migration 048): 5-minute buckets, rolled
 * up into hourly ones once 2 hours old, each key's wakes after a rest, each account's usual hour as
 * last read. Every method but `rollUp` runs in the transaction of the batch of bills (`tx`).
 */
export interface SpendBooksStore {
  /** Adds a batch's charges to their 5-minute buckets, and records the keys that woke after an hour or more without a bill. */
  record(tx: Queryable, charges: readonly KeyedCharge[]): Promise<void>;
  /** What mayAlert reads of each account: its buckets of the slots from `recentFromMs`, its keys' wakes after `wokeAfterMs`. */
  recent(
    tx: Queryable,
    accountIds: readonly string[],
    window: { recentFromMs: number; wokeAfterMs: number },
  ): Promise<Map<string, Pick<AccountSpendRead, 'recent' | 'wakes'>>>;
  /** What judgeSpend reads beside: each account's alerts still open, raised after `raisedAfterMs` or of idle keys, and its usual hour as last read. */
  judged(
    tx: Queryable,
    accountIds: readonly string[],
    raisedAfterMs: number,
  ): Promise<Map<string, Pick<AccountSpendRead, 'raised' | 'usual'>>>;
  /** The spend of each account per hour and key from `fromMs` to before `toMs` (hours rolled up, and slots not yet). */
  history(tx: Queryable, accountIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, SpendBucket[]>>;
  /** Keeps each account's usual hour as read now. */
  keepUsual(tx: Queryable, usual: ReadonlyMap<string, UsualSpend>): Promise<void>;
  /** Moves the 5-minute buckets before `slotsBeforeMs` into their hours (once each) and drops the hours before `hoursBeforeMs`. */
  rollUp(slotsBeforeMs: number, hoursBeforeMs: number): Promise<void>;
}
