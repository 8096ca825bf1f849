import { Database, Queryable } from '@gw/service-kit';
import { KeyWake, RaisedAlert, SpendAlertReason, SpendBucket, UsualSpend } from '@gw/money';
import { Int8, toSafeInt } from './pg-billing-rows';
import { SpendBooksStore } from './spend-books-store';
import { AccountSpendRead, KeyedCharge } from './spend-records';

/** A key billed again after this long without a bill is recorded as woken, with its rest: the rule decides which rests matter. */
const REST = "interval '1 hour'";
/** How far a key's last bill may lag behind: it is rewritten only when older than this, or when the key woke. */
const LAST_BILLED_LAG = "interval '5 minutes'";

/**
 * One statement: the batch's charges summed into their 5-minute buckets (UTC, each key apart), and
 * each key's last bill (a few minutes' lag allowed, so that a key's row is not rewritten by every
 * batch) and its wake when it had rested. Rows in key order; the batch's accounts are locked by
 * apply_bills before this.
 */
const RECORD = `
  WITH spent AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[], $5::bigint[]) AS s(account_id, key_id, at, spend, requests)),
  slots AS (
    INSERT INTO billing.spend_slots AS t (account_id, slot_at, key_id, spend_micro, requests)
    SELECT account_id, date_bin('5 minutes', at, timestamptz 'epoch'), key_id, sum(spend), sum(requests) FROM spent
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, slot_at, key_id) DO UPDATE
      SET spend_micro = t.spend_micro + EXCLUDED.spend_micro, requests = t.requests + EXCLUDED.requests)
  INSERT INTO billing.spend_keys AS k (account_id, key_id, first_billed_at, last_billed_at)
  SELECT account_id, key_id, min(at), max(at) FROM spent WHERE requests > 0 GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (account_id, key_id) DO UPDATE SET
    last_billed_at = EXCLUDED.last_billed_at,
    woke_at = CASE WHEN EXCLUDED.first_billed_at - k.last_billed_at >= ${REST} THEN EXCLUDED.first_billed_at ELSE k.woke_at END,
    rested_ms = CASE WHEN EXCLUDED.first_billed_at - k.last_billed_at >= ${REST}
      THEN (extract(epoch FROM EXCLUDED.first_billed_at - k.last_billed_at) * 1000)::bigint ELSE k.rested_ms END
  WHERE EXCLUDED.last_billed_at > k.last_billed_at + ${LAST_BILLED_LAG}`;

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::bigint`;

/** The last hour's buckets and the recent wakes of the batch's accounts, as rows: a bucket (kind 0) or a wake (kind 1). */
const RECENT = `
  SELECT 0 AS kind, account_id, key_id, ${ms('slot_at')} AS at, spend_micro AS amount, requests FROM billing.spend_slots
  WHERE account_id = ANY ($1::text[]) AND slot_at >= $2
  UNION ALL
  SELECT 1, account_id, key_id, ${ms('woke_at')}, rested_ms, 0 FROM billing.spend_keys
  WHERE account_id = ANY ($1::text[]) AND woke_at > $3`;

interface RecentRow {
  kind: 0 | 1;
  account_id: string;
  key_id: string;
  at: Int8;
  amount: Int8;
  requests: Int8;
}

/**
 * Moves 5-minute buckets into their hours in one statement: each is deleted and added once, also
 * with replicas rolling up at once (the second waits for the first's rows, then finds them gone).
 */
const ROLL_UP = `
  WITH moved AS (DELETE FROM billing.spend_slots WHERE slot_at < $1 RETURNING account_id, slot_at, key_id, spend_micro, requests)
  INSERT INTO billing.spend_hours AS t (account_id, hour_at, key_id, spend_micro, requests)
  SELECT account_id, date_bin('1 hour', slot_at, timestamptz 'epoch'), key_id, sum(spend_micro), sum(requests) FROM moved
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (account_id, hour_at, key_id) DO UPDATE
    SET spend_micro = t.spend_micro + EXCLUDED.spend_micro, requests = t.requests + EXCLUDED.requests`;

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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

  async recent(
    tx: Queryable,
    accountIds: readonly string[],
    window: { recentFromMs: number; wokeAfterMs: number },
  ): Promise<Map<string, Pick<AccountSpendRead, 'recent' | 'wakes'>>> {
    const { rows } = await tx.query<RecentRow>(RECENT, [accountIds, new Date(window.recentFromMs), new Date(window.wokeAfterMs)]);
    const read = new Map(accountIds.map((id) => [id, { recent: [] as SpendBucket[], wakes: [] as KeyWake[] }]));
    for (const r of rows) {
      const account = read.get(r.account_id);
      if (!account) continue;
      const [keyId, at, amount] = [r.key_id, toSafeInt(r.at), toSafeInt(r.amount)];
      if (r.kind === 0) account.recent.push({ keyId, startMs: at, spendMicro: amount, requests: toSafeInt(r.requests) });
      else account.wakes.push({ keyId, wokeAtMs: at, restedMs: amount });
    }
    return read;
  }

  async judged(
    tx: Queryable,
    accountIds: readonly string[],
    raisedAfterMs: number,
  ): Promise<Map<string, Pick<AccountSpendRead, 'raised' | 'usual'>>> {
    const [alerts, usual] = [
      await tx.query<{ account_id: string; key_id: string; reason: SpendAlertReason; at: Int8; open: boolean }>(
        `SELECT account_id, key_id, reason, ${ms('raised_at')} AS at, closed_at IS NULL AS open FROM billing.spend_alerts
         WHERE account_id = ANY ($1::text[]) AND (closed_at IS NULL OR reason = 'idle-key' OR raised_at > $2)`,
        [accountIds, new Date(raisedAfterMs)],
      ),
      await tx.query<{ account_id: string; at: Int8; usual: Int8; hours: number; shares: Record<string, number> }>(
        `SELECT account_id, ${ms('hour_at')} AS at, usual_micro AS usual, history_hours AS hours, key_shares AS shares
         FROM billing.spend_usual WHERE account_id = ANY ($1::text[])`,
        [accountIds],
      ),
    ];
    const read = new Map(accountIds.map((id) => [id, { raised: [] as RaisedAlert[], usual: undefined as UsualSpend | undefined }]));
    for (const r of alerts.rows)
      read.get(r.account_id)?.raised.push({ keyId: r.key_id, reason: r.reason, raisedAtMs: toSafeInt(r.at), open: r.open });
    for (const r of usual.rows) {
      const account = read.get(r.account_id);
      if (account) account.usual = { hourMs: toSafeInt(r.at), usualMicro: toSafeInt(r.usual), hours: r.hours, keyShares: r.shares };
    }
    return read;
  }

  async history(tx: Queryable, accountIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, SpendBucket[]>> {
    // The hours rolled up, and the slots not yet (at most the last few hours'): an hour may be in both, summed.
    const { rows } = await tx.query<{ account_id: string; key_id: string; at: Int8; spend: Int8; requests: Int8 }>(
      `SELECT account_id, key_id, ${ms('hour_at')} AS at, spend_micro AS spend, requests FROM billing.spend_hours
       WHERE account_id = ANY ($1::text[]) AND hour_at >= $2 AND hour_at < $3
       UNION ALL
       SELECT account_id, key_id, ${ms("date_bin('1 hour', slot_at, timestamptz 'epoch')")}, spend_micro, requests FROM billing.spend_slots
       WHERE account_id = ANY ($1::text[]) AND slot_at >= $2 AND slot_at < $3`,
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
    const kept = [...usual].sort(([a], [b]) => byId(a, b));
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

  async rollUp(slotsBeforeMs: number, hoursBeforeMs: number): Promise<void> {
    await this.db.query(ROLL_UP, [new Date(slotsBeforeMs)]);
    await this.db.query('DELETE FROM billing.spend_hours WHERE hour_at < $1', [new Date(hoursBeforeMs)]);
  }
}
