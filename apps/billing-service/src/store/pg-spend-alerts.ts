import { Database, Queryable } from '@gw/service-kit';
import { SpendAlert, SpendAlertReason } from '@gw/money';
import { Int8, toSafeInt } from './pg-billing-rows';
import { SpendAlertStore, SpendAlertTarget } from './spend-alert-store';
import { SpendAlertClosing, SpendAlertRecord } from './spend-records';

interface AlertRow {
  alert_id: Int8;
  account_id: string;
  key_id: string;
  reason: SpendAlertReason;
  raised_at: Date;
  last_hour_micro: Int8;
  last_hour_requests: Int8;
  key_last_hour_micro: Int8;
  usual_micro: Int8;
  history_hours: number;
  threshold_micro: Int8;
  rested_ms: Int8 | null;
  closed_at: Date | null;
  closing: SpendAlertClosing | null;
  closed_by: string | null;
}

const toRecord = (r: AlertRow): SpendAlertRecord => ({
  alertId: toSafeInt(r.alert_id),
  accountId: r.account_id,
  keyId: r.key_id,
  reason: r.reason,
  raisedAt: r.raised_at,
  lastHourMicro: toSafeInt(r.last_hour_micro),
  lastHourRequests: toSafeInt(r.last_hour_requests),
  keyLastHourMicro: toSafeInt(r.key_last_hour_micro),
  usualMicro: toSafeInt(r.usual_micro),
  historyHours: r.history_hours,
  thresholdMicro: toSafeInt(r.threshold_micro),
  ...(r.rested_ms !== null ? { restedMs: toSafeInt(r.rested_ms) } : {}),
  ...(r.closed_at && r.closing ? { closed: { at: r.closed_at, closing: r.closing, by: r.closed_by ?? '' } } : {}),
});

/** SpendAlertStore on Postgres (billing.spend_alerts of migration 048). */
export class PgSpendAlerts implements SpendAlertStore {
  constructor(private readonly db: Database) {}

  async raise(tx: Queryable, alerts: readonly { accountId: string; alert: SpendAlert }[]): Promise<SpendAlertRecord[]> {
    if (alerts.length === 0) return [];
    const column = <T>(pick: (a: SpendAlert) => T) => alerts.map((a) => pick(a.alert));
    const { rows } = await tx.query<AlertRow>(
      `INSERT INTO billing.spend_alerts (account_id, key_id, reason, last_hour_micro, last_hour_requests, key_last_hour_micro,
         usual_micro, history_hours, threshold_micro, rested_ms)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::int[],
         $9::bigint[], $10::bigint[])
       RETURNING *`,
      [
        alerts.map((a) => a.accountId),
        column((a) => a.keyId),
        column((a) => a.reason),
        column((a) => a.lastHourMicro),
        column((a) => a.lastHourRequests),
        column((a) => a.keyLastHourMicro),
        column((a) => a.usualMicro),
        column((a) => a.historyHours),
        column((a) => a.thresholdMicro),
        column((a) => a.restedMs ?? null),
      ],
    );
    return rows.map(toRecord);
  }

  async list(accountId: string | undefined, includeClosed: boolean, limit: number): Promise<SpendAlertRecord[]> {
    const { rows } = await this.db.query<AlertRow>(
      `SELECT * FROM billing.spend_alerts WHERE ($1::text IS NULL OR account_id = $1) AND ($2 OR closed_at IS NULL)
       ORDER BY raised_at DESC, alert_id DESC LIMIT $3`,
      [accountId ?? null, includeClosed, limit],
    );
    return rows.map(toRecord);
  }

  async close(target: SpendAlertTarget, closing: SpendAlertClosing, by: string): Promise<SpendAlertRecord[] | undefined> {
    const account = target.accountId ?? null;
    if ('keyId' in target) {
      const { rows } = await this.db.query<AlertRow>(
        `UPDATE billing.spend_alerts SET closed_at = now(), closing = $3, closed_by = $4
         WHERE key_id = $1 AND ($2::text IS NULL OR account_id = $2) AND closed_at IS NULL RETURNING *`,
        [target.keyId, account, closing, by],
      );
      return rows.map(toRecord);
    }
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<AlertRow>(
        `SELECT * FROM billing.spend_alerts WHERE alert_id = $1 AND ($2::text IS NULL OR account_id = $2) FOR UPDATE`,
        [target.alertId, account],
      );
      if (rows.length === 0) return undefined;
      if (rows[0].closed_at) return rows.map(toRecord);
      const closed = await tx.query<AlertRow>(
        `UPDATE billing.spend_alerts SET closed_at = now(), closing = $2, closed_by = $3 WHERE alert_id = $1 RETURNING *`,
        [target.alertId, closing, by],
      );
      return closed.rows.map(toRecord);
    });
  }
}
