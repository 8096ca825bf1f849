import { LedgerBill } from '../store/credit-line-records';
import { PriceHistoryStore } from '../store/price-history-store';

/** How a bill's prices are checked against the prices in force when its request was admitted. */
export interface PriceCheck {
  history: PriceHistoryStore;
  /**
   * How far from its admitted time a bill's prices may have been in force: before it, because
   * quota-service applies a change through its price watch after billing-service committed it,
   * so a request admitted just after a change may carry the prices before it; after it, because
   * the admitted time is Redis's clock and the change's PostgreSQL's, and a Redis clock behind
   * would put a request admitted with the new prices before their change.
   */
  propagationMs: number;
}

/**
 * For each bill, in order: true when it is paid, carries its admitted time, and its model's
 * prices were not these at any moment within `propagationMs` of that time. A free
 * bill, or one from a quota-service too old to send its admitted time, is not checked.
 */
export async function priceMismatches(bills: readonly LedgerBill[], check: PriceCheck): Promise<boolean[]> {
  const checked = bills.flatMap((b, i) => (b.paid && b.admittedAtMs !== undefined ? [i] : []));
  const inForce = await check.history.inForce(
    checked.map((i) => {
      const bill = bills[i];
      const admitted = bill.admittedAtMs as number;
      return {
        model: bill.model,
        inputMicroPerMillion: bill.inputMicroPerMillion,
        outputMicroPerMillion: bill.outputMicroPerMillion,
        fromMs: admitted - check.propagationMs,
        toMs: admitted + check.propagationMs,
      };
    }),
  );
  const mismatched = bills.map(() => false);
  checked.forEach((i, k) => (mismatched[i] = !inForce[k]));
  return mismatched;
}
