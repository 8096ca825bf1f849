import { AuditActor, Database } from '@gw/service-kit';
import { BalanceRecord, PriceChange, PriceRecord, PriceTable } from './billing-records';
import { BalanceChange, BalanceChangeOutcome, BillingStore } from './billing-store';
import { CreditLineRecord } from './credit-line-records';
import { PgBalanceEvents } from './pg-balance-events';
import { readBalance, readCreditLine, readPriceTable } from './pg-billing-reads';
import { Int8, toSafeInt } from './pg-billing-rows';
import { PgMoneyLinks } from './pg-money-links';

/** The largest balance kept: read back as a JavaScript number, it must be exact. */
const MAX_BALANCE_MICRO = Number.MAX_SAFE_INTEGER;

/** BillingStore on Postgres (server or PGlite), schema `billing`. */
export class PgBillingStore implements BillingStore {
  constructor(
    private readonly db: Database,
    private readonly links: PgMoneyLinks,
    private readonly balanceEvents: PgBalanceEvents,
  ) {}

  setPrice(price: PriceRecord, by: AuditActor): Promise<PriceChange> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ version: Int8 }>('SELECT billing.set_price($1, $2, $3) AS version', [
        price.model,
        price.inputMicroPerMillion,
        price.outputMicroPerMillion,
      ]);
      const details = {
        model: price.model,
        inputMicroPerMillion: price.inputMicroPerMillion,
        outputMicroPerMillion: price.outputMicroPerMillion,
      };
      await this.links.trail.append(tx, { accountId: null, action: 'price-set', details, ...by });
      return { version: toSafeInt(rows[0].version), price: { ...price } };
    });
  }

  priceTable(): Promise<PriceTable> {
    return readPriceTable(this.db);
  }

  getBalance(accountId: string): Promise<BalanceRecord | undefined> {
    return readBalance(this.db, accountId);
  }

  getCreditLine(accountId: string): Promise<CreditLineRecord | undefined> {
    return readCreditLine(this.db, accountId);
  }

  // The range is checked in the statement itself: a sum past it is never written, so a refusal
  // changes nothing (the CHECK of migration 003 is only the backstop).
  addBalance(change: BalanceChange): Promise<BalanceChangeOutcome> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ outcome: BalanceChangeOutcome['kind']; balance: Int8 | null }>(
        'SELECT outcome, balance FROM billing.add_balance($1, $2, $3, $4, $5, $6)',
        [change.accountId, change.amountMicro, MAX_BALANCE_MICRO, change.reason, change.madeBy, change.idempotencyKey ?? null],
      );
      const { outcome, balance } = rows[0];
      if (outcome !== 'applied' && outcome !== 'repeated') return { kind: outcome };
      const balanceMicro = toSafeInt(balance ?? 0);
      // A repeat under the same idempotency key changed nothing: it is not recorded again.
      if (outcome === 'applied') {
        // The entry add_balance wrote, by its id (the sequence's last value in this session).
        const entry = await tx.query<{ id: Int8 }>(`SELECT currval(pg_get_serial_sequence('billing.balance_entries', 'id')) AS id`);
        const entryId = toSafeInt(entry.rows[0].id);
        const details = { amountMicro: change.amountMicro, balanceMicro, idempotencyKey: change.idempotencyKey ?? null, entryId };
        // Before the link: its append holds the chain's head until commit, so every change waits its turn there.
        await this.balanceEvents.balanceChanged(tx, change.accountId, change.amountMicro, balanceMicro);
        await this.links.append(
          tx,
          { accountId: change.accountId, action: 'balance-changed', details, actor: change.madeBy || 'unknown', reason: change.reason },
          [{ kind: 'entry', accountId: change.accountId, entryId, amountMicro: change.amountMicro }],
        );
      }
      return { kind: outcome, balanceMicro };
    });
  }
}
