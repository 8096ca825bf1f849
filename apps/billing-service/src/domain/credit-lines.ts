import { grpcCodeOf, ItemOutcome, MAX_BATCH, optionalId, requireCount, requireId } from '@gw/service-kit';
import { countBill, countBillSetAside, countExtension } from '../billing-metrics';
import { admittedMs, clockRefusal, FilingWindow } from './bill-time';
import { LedgerBill, CreditLineAsk, SetAsideReason, CreditLineExtension, LentLine, LineReturnRecord } from '../store/credit-line-records';
import { CreditLineStore } from '../store/credit-line-store';
import { asRecorded, checkBill } from './bill-check';
import { PriceCheck, priceMismatches } from './bill-prices';
import { requireAmount } from './field-bounds';
import { DomainError } from '@gw/errors';

/** What applying one bill came to, as ApplyBills answers it. */
export interface BillOutcome {
  /** This call wrote the bill's ledger row, or corrected an estimated one. */
  applied: boolean;
  /** The request id was billed before (in the ledger or an archived month, or earlier in the same call): nothing changed. */
  repeated: boolean;
  /** Not filed, kept among the set-aside bills for the operator (too far from the clock, its month archived, prices not in force): nothing charged. */
  setAside: boolean;
  /** Why it was set aside, when it was. */
  setAsideReason?: SetAsideReason;
  shortfallMicro: number;
  /** INVALID_ARGUMENT for a bill refused for good, else 0. */
  errorCode: number;
  errorMessage: string;
}

/** An extension's fields within billing.v1's bounds, else INVALID_ARGUMENT naming the field. */
function requireAsk({ accountId, returnedTotalMicro, needMicro, grantedTotalMicro, uncoveredMicro }: CreditLineAsk): void {
  requireId('account_id', accountId);
  requireAmount('returned_total_micro_lyd', returnedTotalMicro);
  requireAmount('need_micro_lyd', needMicro);
  if (grantedTotalMicro !== undefined) requireAmount('granted_total_micro_lyd', grantedTotalMicro);
  if (uncoveredMicro !== undefined) requireAmount('uncovered_micro_lyd', uncoveredMicro);
}

/** ListCreditLines' largest page. */
export const MAX_LENT_LINES_PAGE = 1000;

const REPEATED: BillOutcome = { applied: false, repeated: true, setAside: false, shortfallMicro: 0, errorCode: 0, errorMessage: '' };
const SET_ASIDE: BillOutcome = { applied: false, repeated: false, setAside: true, shortfallMicro: 0, errorCode: 0, errorMessage: '' };

/**
 * The credit lines lent to quota-service and the bills it delivers: quota-service holds running
 * paid requests inside an account's line and bills them against it; Postgres keeps
 * held + line <= balance, so whatever quota-service's store loses, no balance goes below zero.
 */
export class CreditLines {
  constructor(
    private readonly store: CreditLineStore,
    private readonly window: FilingWindow,
    private readonly prices: PriceCheck,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Applies quota-service's returns, then lends the unheld rest of the balance (all, or at most
   * `needMicro` when it is > 0); a request it leaves uncovered tells the holders (once until a top-up).
   */
  async extend(ask: CreditLineAsk): Promise<CreditLineExtension> {
    requireAsk(ask);
    const extension = await this.store.extend(ask);
    countExtension(extension.lentNowMicro);
    return extension;
  }

  /**
   * Several extensions in one transaction, each served as `extend` serves it, in the order given.
   * An ask past its bounds is answered INVALID_ARGUMENT and skipped; the rest are served. Past
   * MAX_BATCH asks the whole call is refused.
   */
  async extendMany(asks: CreditLineAsk[]): Promise<ItemOutcome<CreditLineExtension>[]> {
    if (asks.length > MAX_BATCH) throw new DomainError('invalid-argument', `at most ${MAX_BATCH} lines in one call`);
    const outcomes = asks.map((ask): ItemOutcome<CreditLineExtension> => {
      try {
        requireAsk(ask);
        return { result: undefined, errorCode: 0, errorMessage: '' };
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        return { result: undefined, errorCode: grpcCodeOf(err) as number, errorMessage: err.message };
      }
    });
    const served = asks.flatMap((_, i) => (outcomes[i].errorCode === 0 ? [i] : []));
    const extensions = await this.store.extendMany(served.map((i) => asks[i]));
    served.forEach((i, k) => {
      outcomes[i].result = extensions[k];
      countExtension(extensions[k].lentNowMicro);
    });
    return outcomes;
  }

  /**
   * Applies bills and line returns in one transaction. A bill refused by its check is answered
   * INVALID_ARGUMENT and skipped; the rest apply. Of several bills of one request id in the call,
   * one is applied (one with reported usage rather than an estimate) and the others answered as
   * repeated. Past MAX_BATCH bills or returns, or a return past its bounds, the whole call is refused.
   */
  /** A page of the lines lent now, by account id after `afterAccountId` (empty or an id), `limit` 1 to MAX_LENT_LINES_PAGE. */
  async lentLines(afterAccountId: string, limit: number): Promise<LentLine[]> {
    optionalId('after_account_id', afterAccountId);
    requireCount('limit', limit, MAX_LENT_LINES_PAGE, 1);
    return this.store.lentLines(afterAccountId, limit);
  }

  /** The lines of these accounts (1 to MAX_LENT_LINES_PAGE ids), whatever their line. */
  async linesOf(accountIds: readonly string[]): Promise<LentLine[]> {
    if (accountIds.length > MAX_LENT_LINES_PAGE) throw new DomainError('invalid-argument', `at most ${MAX_LENT_LINES_PAGE} account_ids`);
    for (const id of accountIds) requireId('account_ids', id);
    return this.store.linesOf(accountIds);
  }

  async applyBills(bills: LedgerBill[], returns: LineReturnRecord[]): Promise<BillOutcome[]> {
    if (bills.length > MAX_BATCH || returns.length > MAX_BATCH)
      throw new DomainError('invalid-argument', `at most ${MAX_BATCH} bills and ${MAX_BATCH} returns in one call`);
    for (const r of returns) {
      requireId('account_id', r.accountId);
      requireAmount('returned_total_micro_lyd', r.returnedTotalMicro);
    }
    const outcomes: BillOutcome[] = new Array<BillOutcome>(bills.length);
    const repeated = (i: number) => {
      outcomes[i] = REPEATED;
      countBill(bills[i], 'repeated');
    };
    const chosen = new Map<string, number>();
    bills.forEach((bill, i) => {
      try {
        checkBill(bill);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        outcomes[i] = {
          applied: false,
          repeated: false,
          setAside: false,
          shortfallMicro: 0,
          errorCode: grpcCodeOf(err) as number,
          errorMessage: err.message,
        };
        countBill(bill, 'refused');
        return;
      }
      const other = chosen.get(bill.requestId);
      if (other !== undefined && !(bills[other].usageEstimated && !bill.usageEstimated)) return repeated(i);
      if (other !== undefined) repeated(other);
      chosen.set(bill.requestId, i);
    });
    const batch = [...chosen.values()];
    const now = this.now();
    const mismatched = await priceMismatches(
      batch.map((i) => bills[i]),
      this.prices,
    );
    const applied = await this.store.applyBills(
      batch.map((i, k) => {
        const admitted = admittedMs(bills[i]);
        return {
          ...asRecorded(bills[i]),
          requestAt: bills[i].admittedAtMs === undefined ? undefined : new Date(bills[i].admittedAtMs),
          setAside: clockRefusal(admitted, now, this.window) ?? (mismatched[k] ? 'price-mismatch' : undefined),
        };
      }),
      returns,
    );
    batch.forEach((i, k) => {
      const { outcome, shortfallMicro, setAsideReason } = applied[k];
      if (outcome === 'repeated') return repeated(i);
      if (outcome === 'set-aside') {
        const reason = setAsideReason ?? 'too-late';
        outcomes[i] = { ...SET_ASIDE, setAsideReason: reason };
        countBillSetAside(bills[i], reason);
        return;
      }
      outcomes[i] = { applied: true, repeated: false, setAside: false, shortfallMicro, errorCode: 0, errorMessage: '' };
      countBill(bills[i], outcome, shortfallMicro);
    });
    return outcomes;
  }
}
