import { Queryable } from '@gw/service-kit';
import { FreeUsage } from './hold-records';
import { FreeOutcome } from './hold-store';
import { LEDGER_COLUMNS, LedgerRow, readHold, readLedger, toLedger } from './pg-hold-rows';

// The ledger's primary key makes the row once per request id (a concurrent twin waits, then
// writes nothing); a request with an open paid hold gets no free row.
const INSERT_FREE_ROW = `
  INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
    output_micro_per_million, amount_micro, paid, usage_estimated, request_at)
  SELECT $1, $2, $3, $4, $5, 0, 0, 0, false, $6, billing.ledger_time($1)
  WHERE NOT EXISTS (SELECT 1 FROM billing.holds WHERE request_id = $1)
  ON CONFLICT (request_id, request_at) DO NOTHING
  RETURNING ${LEDGER_COLUMNS}`;

/** Writes a free request's ledger row (amount 0, paid=false, prices 0) inside transaction `tx`. */
export async function recordFreeUsage(tx: Queryable, usage: FreeUsage): Promise<FreeOutcome> {
  const params = [usage.requestId, usage.accountId, usage.model, usage.promptTokens, usage.completionTokens, usage.usageEstimated];
  const inserted = await tx.query<LedgerRow>(INSERT_FREE_ROW, params);
  if (inserted.rows[0]) return { kind: 'recorded', entry: toLedger(inserted.rows[0]) };
  const entry = await readLedger(tx, usage.requestId);
  if (entry) return { kind: 'already-recorded', entry };
  if (await readHold(tx, usage.requestId)) return { kind: 'has-hold' };
  throw new Error(`free request ${usage.requestId} neither recorded nor held`);
}
