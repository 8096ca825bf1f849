import { Database, Queryable } from '@gw/service-kit';
import {
  AppliedBill,
  CreditLineAsk,
  CreditLineExtension,
  FilingBill,
  LentLine,
  LineReturnRecord,
  SetAsideReason,
} from './credit-line-records';
import { leftUncovered } from '../domain/balance-alerts';
import { APPLY_BILLS, applyBillsArguments, applyBillsParameters } from './apply-bills-arguments';
import { CreditLineStore } from './credit-line-store';
import { chargesLink } from './money-link-drafts';
import { Int8, toSafeInt } from './pg-billing-rows';
import { PgBalanceEvents } from './pg-balance-events';
import { PgMoneyLinks } from './pg-money-links';
import { ChargesWatch, KeyedCharge, SpendAlertRecord } from './spend-records';

interface ExtensionRow {
  lent_now: Int8;
  granted_total: Int8;
  balance: Int8;
  charged_total: Int8;
  returned_total: Int8;
  held: Int8;
}

interface AppliedRow {
  bill_outcome: AppliedBill['outcome'];
  bill_charged: Int8;
  bill_shortfall: Int8;
  bill_set_aside: SetAsideReason | null;
}

const toExtension = (r: ExtensionRow): CreditLineExtension => ({
  lentNowMicro: toSafeInt(r.lent_now),
  grantedTotalMicro: toSafeInt(r.granted_total),
  balanceMicro: toSafeInt(r.balance),
  chargedTotalMicro: toSafeInt(r.charged_total),
  returnedTotalMicro: toSafeInt(r.returned_total),
  heldMicro: toSafeInt(r.held),
});

/** Applies bills (and returns) with billing.apply_bills (its current definition: migrations/sql-functions.md), on `q` (a transaction of the caller's, or the pool). */
export async function applyBillsOn(q: Queryable, bills: FilingBill[], returns: LineReturnRecord[]): Promise<AppliedBill[]> {
  const { rows } = await q.query<AppliedRow>(APPLY_BILLS, applyBillsParameters(applyBillsArguments(bills, returns)));
  return rows.map((r) => ({
    outcome: r.bill_outcome,
    chargedMicro: toSafeInt(r.bill_charged),
    shortfallMicro: toSafeInt(r.bill_shortfall),
    ...(r.bill_set_aside ? { setAsideReason: r.bill_set_aside } : {}),
  }));
}

/**
 * CreditLineStore on Postgres: each method one call of a billing function (migrations/sql-functions.md)
 * in one transaction; a batch of bills also appends its link (chargesLink), and both record the
 * holder events they make (PgBalanceEvents); a batch gives its paid charges to the spend watch.
 */
export class PgCreditLineStore implements CreditLineStore {
  constructor(
    private readonly db: Database,
    private readonly links: PgMoneyLinks,
    private readonly balanceEvents: PgBalanceEvents,
    private readonly watch: ChargesWatch,
  ) {}

  async extend(ask: CreditLineAsk): Promise<CreditLineExtension> {
    return (await this.extendMany([ask]))[0];
  }

  async extendMany(asks: CreditLineAsk[]): Promise<CreditLineExtension[]> {
    if (asks.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<ExtensionRow>(
        'SELECT * FROM billing.extend_credit_lines($1::text[], $2::bigint[], $3::bigint[]) ORDER BY line_index',
        [asks.map((a) => a.accountId), asks.map((a) => a.returnedTotalMicro), asks.map((a) => a.needMicro)],
      );
      const extensions = rows.map(toExtension);
      await this.balanceEvents.uncovered(
        tx,
        asks.filter((ask, i) => leftUncovered(ask, extensions[i].grantedTotalMicro)).map((ask) => ask.accountId),
      );
      return extensions;
    });
  }

  lentLines(afterAccountId: string, limit: number): Promise<LentLine[]> {
    return this.lines('line_micro > 0 AND account_id > $1 ORDER BY account_id LIMIT $2', [afterAccountId, limit]);
  }

  linesOf(accountIds: readonly string[]): Promise<LentLine[]> {
    return this.lines('account_id = ANY ($1::text[]) ORDER BY account_id', [accountIds]);
  }

  private async lines(where: string, params: unknown[]): Promise<LentLine[]> {
    const { rows } = await this.db.query<{ account_id: string; granted: Int8; charged: Int8; returned: Int8 }>(
      `SELECT account_id, line_granted_total AS granted, line_charged_total AS charged, line_returned_total AS returned
         FROM billing.balances WHERE ${where}`,
      params,
    );
    return rows.map((r) => ({
      accountId: r.account_id,
      grantedTotalMicro: toSafeInt(r.granted),
      chargedTotalMicro: toSafeInt(r.charged),
      returnedTotalMicro: toSafeInt(r.returned),
    }));
  }

  async applyBills(bills: FilingBill[], returns: LineReturnRecord[]): Promise<AppliedBill[]> {
    if (bills.length === 0 && returns.length === 0) return [];
    let raised: SpendAlertRecord[] = [];
    const applied = await this.db.transaction(async (tx) => {
      const applied = await applyBillsOn(tx, bills, returns);
      const now = Date.now();
      const charged = applied.flatMap((a, i) =>
        a.outcome === 'written' || a.outcome === 'corrected'
          ? [{ bill: bills[i], chargedMicro: a.chargedMicro, corrected: a.outcome === 'corrected' }]
          : [],
      );
      const charges = charged.map(({ bill, chargedMicro, corrected }) => ({
        accountId: bill.accountId,
        requestId: bill.requestId,
        chargedMicro,
        corrected,
      }));
      // Before the link, which holds the chain's head until commit.
      await this.balanceEvents.balancesMoved(
        tx,
        charges.map((c) => c.accountId),
        false,
      );
      raised = await this.watchSpend(
        tx,
        charged
          .filter(({ bill }) => bill.paid)
          .map(({ bill, chargedMicro, corrected }) => ({
            accountId: bill.accountId,
            keyId: bill.keyId ?? '',
            atMs: bill.requestAt?.getTime() ?? now,
            spendMicro: chargedMicro,
            requests: corrected ? 0 : 1,
          })),
      );
      const { draft, rows } = chargesLink(charges, returns, 'apply-bills');
      // One link per batch that moved money or lines; a batch of repeats and set-aside bills moved nothing.
      if (rows.length || returns.length) await this.links.append(tx, draft, rows);
      return applied;
    });
    this.watch.committed(raised);
    return applied;
  }

  /**
   * The spend watch in a savepoint of the batch's transaction: a failure of it is undone alone and
   * logged, and the batch's money goes on, so that billing never waits on the watch.
   */
  private async watchSpend(tx: Queryable, charges: KeyedCharge[]): Promise<SpendAlertRecord[]> {
    if (charges.length === 0) return [];
    await tx.query('SAVEPOINT spend_watch');
    try {
      const raised = await this.watch.charged(tx, charges);
      await tx.query('RELEASE SAVEPOINT spend_watch');
      return raised;
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT spend_watch');
      this.watch.failed(err);
      return [];
    }
  }
}
