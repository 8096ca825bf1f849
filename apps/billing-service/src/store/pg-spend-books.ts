import { Database, Queryable } from '@gw/service-kit';
import { KeyWake, RaisedAlert, SpendAlertReason, SpendBucket, UsualSpend } from '@gw/money';
import { Int8, toSafeInt } from './pg-billing-rows';
import { SpendBooksStore } from './spend-books-store';
import { AccountSpendRead, KeyedCharge } from './spend-records';

/** A key billed again after this long without a bill is recorded as woken, with its rest: the rule decides which rests matter. */
const REST = "interval '1 hour'";

/**
 * One statement: the batch's charges summed into their 5-minute and hourly buckets (UTC, each key
 * apart), and each key's first and last bill, its wake when it had rested. Rows in key order, as
 * every writer takes them, and the batch's accounts are locked by apply_bills before this.
 */
const RECORD = `
  WITH spent AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[], $5::bigint[]) AS s(account_id, key_id, at, spend, requests)),
  slots AS (
    INSERT INTO billing.spend_slots AS t (account_id, slot_at, key_id, spend_micro, requests)
    SELECT account_id, date_bin('5 minutes', at, timestamptz 'epoch'), key_id, sum(spend), sum(requests) FROM spent
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, slot_at, key_id) DO UPDATE
      SET spend_micro = t.spend_micro + EXCLUDED.spend_micro, requests = t.requests + EXCLUDED.requests),
  hours AS (
    INSERT INTO billing.spend_hours AS t (account_id, hour_at, key_id, spend_micro, requests)
    SELECT account_id, date_bin('1 hour', at, timestamptz 'epoch'), key_id, sum(spend), sum(requests) FROM spent
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, hour_at, key_id) DO UPDATE
      SET spend_micro = t.spend_micro + EXCLUDED.spend_micro, requests = t.requests + EXCLUDED.requests)
  INSERT INTO billing.spend_keys AS k (account_id, key_id, first_billed_at, last_billed_at)
  SELECT account_id, key_id, min(at), max(at) FROM spent WHERE requests > 0 GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (account_id, key_id) DO UPDATE SET
    last_billed_at = greatest(k.last_billed_at, EXCLUDED.last_billed_at),
    woke_at = CASE WHEN EXCLUDED.first_billed_at - k.last_billed_at >= ${REST} THEN EXCLUDED.first_billed_at ELSE k.woke_at END,
    rested_ms = CASE WHEN EXCLUDED.first_billed_at - k.last_billed_at >= ${REST}
      THEN (extract(epoch FROM EXCLUDED.first_billed_at - k.last_billed_at) * 1000)::bigint ELSE k.rested_ms END`;

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::bigint`;

/** One round trip: per account, its recent buckets, wakes, alerts that cool the rule down, and its usual hour as last read. */
const READ = `
  SELECT a.account_id,
    (SELECT coalesce(json_agg(json_build_array(s.key_id, ${ms('s.slot_at')}, s.spend_micro, s.requests)), '[]')
       FROM billing.spend_slots s WHERE s.account_id = a.account_id AND s.slot_at >= $2) AS recent,
    (SELECT coalesce(json_agg(json_build_array(k.key_id, ${ms('k.woke_at')}, k.rested_ms)), '[]')
       FROM billing.spend_keys k WHERE k.account_id = a.account_id AND k.woke_at > $3) AS wakes,
    (SELECT coalesce(json_agg(json_build_array(r.key_id, r.reason, ${ms('r.raised_at')}, r.closed_at IS NULL)), '[]')
       FROM billing.spend_alerts r
       WHERE r.account_id = a.account_id AND (r.closed_at IS NULL OR r.reason = 'idle-key' OR r.raised_at > $4)) AS raised,
    (SELECT json_build_array(${ms('u.hour_at')}, u.usual_micro, u.history_hours, u.key_shares)
       FROM billing.spend_usual u WHERE u.account_id = a.account_id) AS usual
  FROM unnest($1::text[]) AS a(account_id)`;

interface ReadRow {
  account_id: string;
  recent: [string, number, number, number][];
  wakes: [string, number, number][];
  raised: [string, SpendAlertReason, number, boolean][];
  usual: [number, number, number, Record<string, number>] | null;
}

/** SpendBooksStore on Postgres (billing.spend_slots, spend_hours, spend_keys and spend_usual of migration 048). */
export class PgSpendBooks implements SpendBooksStore {
  constructor(private readonly db: Database) {}

  async record(tx: Queryable, charges: readonly KeyedCharge[]): Promise<void> {
    if (charges.length === 0) return;
    await tx.query(RECORD, [
      charges.map((c) => c.accountId),
      charges.map((c) => c.keyId),
      charges.map((c) => new Date(c.atMs)),
      charges.map((c) => c.spendMicro),
      charges.map((c) => c.requests),
    ]);
  }

  async read(
    tx: Queryable,
    accountIds: readonly string[],
    window: { recentFromMs: number; wokeAfterMs: number; raisedAfterMs: number },
  ): Promise<Map<string, AccountSpendRead>> {
    const { rows } = await tx.query<ReadRow>(READ, [
      accountIds,
      new Date(window.recentFromMs),
      new Date(window.wokeAfterMs),
      new Date(window.raisedAfterMs),
    ]);
    return new Map(
      rows.map((r) => [
        r.account_id,
        {
          recent: r.recent.map(([keyId, startMs, spendMicro, requests]): SpendBucket => ({ keyId, startMs, spendMicro, requests })),
          wakes: r.wakes.map(([keyId, wokeAtMs, restedMs]): KeyWake => ({ keyId, wokeAtMs, restedMs })),
          raised: r.raised.map(([keyId, reason, raisedAtMs, open]): RaisedAlert => ({ keyId, reason, raisedAtMs, open })),
          usual: r.usual ? { hourMs: r.usual[0], usualMicro: r.usual[1], hours: r.usual[2], keyShares: r.usual[3] } : undefined,
        },
      ]),
    );
  }

  async history(tx: Queryable, accountIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, SpendBucket[]>> {
    const { rows } = await tx.query<{ account_id: string; key_id: string; at: Int8; spend: Int8; requests: Int8 }>(
      `SELECT account_id, key_id, ${ms('hour_at')} AS at, spend_micro AS spend, requests FROM billing.spend_hours
       WHERE account_id = ANY ($1::text[]) AND hour_at >= $2 AND hour_at < $3`,
      [accountIds, new Date(fromMs), new Date(toMs)],
    );
    const history = new Map<string, SpendBucket[]>(accountIds.map((id) => [id, []]));
    for (const r of rows)
      history.get(r.account_id)?.push({
        keyId: r.key_id,
        startMs: toSafeInt(r.at),
        spendMicro: toSafeInt(r.spend),
        requests: toSafeInt(r.requests),
      });
    return history;
  }

  async keepUsual(tx: Queryable, usual: ReadonlyMap<string, UsualSpend>): Promise<void> {
    if (usual.size === 0) return;
    const kept = [...usual].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await tx.query(
      `INSERT INTO billing.spend_usual AS u (account_id, hour_at, usual_micro, history_hours, key_shares)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::int[], $5::jsonb[])
       ON CONFLICT (account_id) DO UPDATE SET hour_at = EXCLUDED.hour_at, usual_micro = EXCLUDED.usual_micro,
         history_hours = EXCLUDED.history_hours, key_shares = EXCLUDED.key_shares`,
      [
        kept.map(([id]) => id),
        kept.map(([, u]) => new Date(u.hourMs)),
        kept.map(([, u]) => Math.round(u.usualMicro)),
        kept.map(([, u]) => u.hours),
        kept.map(([, u]) => JSON.stringify(u.keyShares)),
      ],
    );
  }

  async prune(slotsBeforeMs: number, hoursBeforeMs: number): Promise<void> {
    await this.db.query('DELETE FROM billing.spend_slots WHERE slot_at < $1', [new Date(slotsBeforeMs)]);
    await this.db.query('DELETE FROM billing.spend_hours WHERE hour_at < $1', [new Date(hoursBeforeMs)]);
  }
}
