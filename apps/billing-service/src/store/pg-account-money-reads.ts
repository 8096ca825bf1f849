import { Database } from '@gw/service-kit';
import { PriceRecord } from './billing-records';
import { AccountMoneyReads, ChargeRecord, DayTotalRecord } from './account-money-reads';
import { EndReason } from './credit-line-records';
import { Int8, PRICE_COLUMNS, PriceRow, toPrice, toSafeInt } from './pg-billing-rows';

interface ChargeRow {
  request_id: string;
  created_at: Date;
  model: string;
  prompt_tokens: Int8;
  completion_tokens: Int8;
  amount_micro: Int8;
  paid: boolean;
  usage_estimated: boolean;
  end_reason: EndReason;
  corrected: boolean;
}

/** AccountMoneyReads on Postgres (or PGlite), from billing.ledger (indexed by account and time) and billing.prices. */
export class PgAccountMoneyReads implements AccountMoneyReads {
  constructor(private readonly db: Database) {}

  async charges(accountId: string, limit: number, before: string | undefined): Promise<ChargeRecord[]> {
    // Keyset paging on (created_at, request_id): exact however many rows arrive meanwhile.
    const { rows } = await this.db.query<ChargeRow>(
      `SELECT l.request_id, l.created_at, l.model, l.prompt_tokens, l.completion_tokens, l.amount_micro, l.paid, l.usage_estimated,
         l.end_reason,
         EXISTS (SELECT 1 FROM billing.charge_corrections k WHERE k.request_id = l.request_id AND k.request_at = l.request_at) AS corrected
       FROM billing.ledger l
       WHERE l.account_id = $1
         AND ($3::text IS NULL OR (l.created_at, l.request_id) < (SELECT c.created_at, c.request_id FROM billing.ledger c WHERE c.request_id = $3 AND c.account_id = $1))
       ORDER BY l.created_at DESC, l.request_id DESC
       LIMIT $2`,
      [accountId, limit, before ?? null],
    );
    return rows.map((r) => ({
      requestId: r.request_id,
      createdAt: r.created_at,
      model: r.model,
      promptTokens: toSafeInt(r.prompt_tokens),
      completionTokens: toSafeInt(r.completion_tokens),
      amountMicro: toSafeInt(r.amount_micro),
      paid: r.paid,
      usageEstimated: r.usage_estimated,
      endReason: r.end_reason,
      corrected: r.corrected,
    }));
  }

  async dailyTotals(accountId: string, days: number): Promise<DayTotalRecord[]> {
    const { rows } = await this.db.query<{ day: string; tokens: Int8; amount: Int8 }>(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
              COALESCE(sum(l.prompt_tokens + l.completion_tokens), 0) AS tokens,
              COALESCE(sum(l.amount_micro), 0) AS amount
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($2::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
       LEFT JOIN billing.ledger l
         ON l.account_id = $1 AND l.created_at >= d.day AT TIME ZONE 'UTC' AND l.created_at < (d.day + interval '1 day') AT TIME ZONE 'UTC'
       GROUP BY d.day ORDER BY d.day`,
      [accountId, days],
    );
    return rows.map((r) => ({ day: r.day, tokens: toSafeInt(r.tokens), amountMicro: toSafeInt(r.amount) }));
  }

  async prices(): Promise<PriceRecord[]> {
    const { rows } = await this.db.query<PriceRow>(`SELECT ${PRICE_COLUMNS} FROM billing.prices ORDER BY model`);
    return rows.map(toPrice);
  }
}
