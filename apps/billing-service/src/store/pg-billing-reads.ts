import { Queryable } from '@gw/service-kit';
import { BalanceRecord, PriceTable } from './billing-records';
import { CreditLineRecord } from './credit-line-records';
import { Int8, PRICE_COLUMNS, PriceRow, toPrice, toSafeInt } from './pg-billing-rows';

/** An account's balance row, or undefined when it never had money. */
export async function readBalance(q: Queryable, accountId: string): Promise<BalanceRecord | undefined> {
  const { rows } = await q.query<{ balance_micro: Int8; held_micro: Int8 }>(
    'SELECT balance_micro, held_micro FROM billing.balances WHERE account_id = $1',
    [accountId],
  );
  return rows[0] && { balanceMicro: toSafeInt(rows[0].balance_micro), heldMicro: toSafeInt(rows[0].held_micro) };
}

/** An account's balance row with its credit line, or undefined when it never had money. */
export async function readCreditLine(q: Queryable, accountId: string): Promise<CreditLineRecord | undefined> {
  const { rows } = await q.query<
    Record<'balance_micro' | 'held_micro' | 'line_micro' | 'line_granted_total' | 'line_charged_total' | 'line_returned_total', Int8>
  >(
    `SELECT balance_micro, held_micro, line_micro, line_granted_total, line_charged_total, line_returned_total
     FROM billing.balances WHERE account_id = $1`,
    [accountId],
  );
  const r = rows[0];
  return (
    r && {
      balanceMicro: toSafeInt(r.balance_micro),
      heldMicro: toSafeInt(r.held_micro),
      lineMicro: toSafeInt(r.line_micro),
      grantedTotalMicro: toSafeInt(r.line_granted_total),
      chargedTotalMicro: toSafeInt(r.line_charged_total),
      returnedTotalMicro: toSafeInt(r.line_returned_total),
    }
  );
}

/** The whole price table and its version, read in one statement (so at one moment), sorted by model. */
export async function readPriceTable(q: Queryable): Promise<PriceTable> {
  const { rows } = await q.query<{ version: Int8; prices: PriceRow[] }>(
    `SELECT v.version, coalesce((SELECT json_agg(p ORDER BY p.model) FROM (SELECT ${PRICE_COLUMNS} FROM billing.prices) p), '[]') AS prices
     FROM billing.prices_version v`,
  );
  return { version: toSafeInt(rows[0].version), prices: rows[0].prices.map(toPrice) };
}
