import { Database, Queryable } from '@gw/service-kit';
import { BalanceRecord, PriceRecord } from '../../store/billing-records';
import { chargesLink } from '../../store/money-link-drafts';
import { readBalance, readCreditLine } from '../../store/pg-billing-reads';
import { Int8, PRICE_COLUMNS, PriceRow, toPrice, toSafeInt } from '../../store/pg-billing-rows';
import { PgMoneyLinks } from '../../store/pg-money-links';
import { FreeUsage, HoldRecord, NewHold, SettleUsage } from './hold-records';
import { FreeOutcome, HoldOutcome, HoldStore, SettleOutcome } from './hold-store';
import { recordFreeUsage } from './pg-free-usage';
import { HOLD_COLUMNS, HoldRow, LEDGER_COLUMNS, LedgerRow, readHold, readLedger, toHold, toLedger } from './pg-hold-rows';
import { chargeOpenHolds, OpenHoldCharge, readHolds } from './pg-open-hold-charges';

/** The balance and what is held or lent as the credit line, zeros for an account without a row; `ownHoldMicro` is not counted as held. */
async function balanceBeside(q: Queryable, accountId: string, ownHoldMicro = 0): Promise<BalanceRecord> {
  const money = await readCreditLine(q, accountId);
  return { balanceMicro: money?.balanceMicro ?? 0, heldMicro: (money ? money.heldMicro + money.lineMicro : 0) - ownHoldMicro };
}

/** Settle's answer for a request id already in the ledger. */
async function earlierSettle(q: Queryable, requestId: string): Promise<SettleOutcome | undefined> {
  const entry = await readLedger(q, requestId);
  if (!entry) return undefined;
  return { entry, balanceMicro: (await readBalance(q, entry.accountId))?.balanceMicro ?? 0, repeated: true };
}

/** Authorize's answer for a request id already in the ledger. */
async function alreadySettled(q: Queryable, requestId: string): Promise<HoldOutcome | undefined> {
  const entry = await readLedger(q, requestId);
  return entry && { kind: 'already-settled', entry, balance: await balanceBeside(q, entry.accountId) };
}

// One stale hold (neither placed nor renewed within the TTL) per statement: deleting it and giving its amount back is one atomic step, and
// SKIP LOCKED lets replicas sweep side by side without waiting on each other or on a settle.
const RELEASE_ONE_STALE_HOLD = `
  WITH gone AS (
    DELETE FROM billing.holds WHERE request_id = (
      SELECT request_id FROM billing.holds WHERE renewed_at < now() - $1::float8 * interval '1 second'
      ORDER BY renewed_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING account_id, amount_micro),
  released AS (
    UPDATE billing.balances b SET held_micro = b.held_micro - gone.amount_micro, updated_at = now()
    FROM gone WHERE b.account_id = gone.account_id RETURNING b.account_id)
  SELECT count(*)::int AS n FROM gone`;

// Deleting a hold and giving its amount back is one atomic statement.
const RELEASE_ONE_HOLD = `
  WITH gone AS (DELETE FROM billing.holds WHERE request_id = $1 RETURNING account_id, amount_micro),
  released AS (
    UPDATE billing.balances b SET held_micro = b.held_micro - gone.amount_micro, updated_at = now()
    FROM gone WHERE b.account_id = gone.account_id RETURNING b.account_id)
  SELECT count(*)::int AS n FROM gone`;

interface PendingSettle {
  usage: SettleUsage;
  chargeFor: (hold: HoldRecord) => number;
  resolve(outcome: SettleOutcome | undefined): void;
  reject(err: unknown): void;
}

/** HoldStore on Postgres (server or PGlite), schema `billing`. */
export class PgHoldStore implements HoldStore {
  private pendingSettles: PendingSettle[] = [];
  constructor(
    private readonly db: Database,
    private readonly links: PgMoneyLinks,
  ) {}

  /** Links the charges of settled holds (the legacy Settle path), in their transaction. */
  private async linkSettles(tx: Queryable, settled: Iterable<SettleOutcome>): Promise<void> {
    const charges = [...settled].map(({ entry }) => ({
      accountId: entry.accountId,
      requestId: entry.requestId,
      chargedMicro: entry.amountMicro,
      corrected: false,
    }));
    const { draft, rows } = chargesLink(charges, [], 'settle');
    if (rows.length) await this.links.append(tx, draft, rows);
  }

  async getPrice(model: string): Promise<PriceRecord | undefined> {
    const { rows } = await this.db.query<PriceRow>(`SELECT ${PRICE_COLUMNS} FROM billing.prices WHERE model = $1`, [model]);
    return rows[0] && toPrice(rows[0]);
  }

  /** One round trip for a new request id; the full transaction for one already held or settled. */
  async placeHold(hold: NewHold): Promise<HoldOutcome> {
    const { rows } = await this.db.query<{ outcome: 'held' | 'refused' | 'known' | 'price-changed'; balance: Int8; held_by_others: Int8 }>(
      'SELECT outcome, balance, held_by_others FROM billing.place_hold($1, $2, $3, $4, $5, $6)',
      [hold.requestId, hold.accountId, hold.model, hold.amountMicro, hold.inputMicroPerMillion, hold.outputMicroPerMillion],
    );
    const { outcome, balance, held_by_others } = rows[0];
    if (outcome === 'known') return this.placeHoldOfKnownId(hold);
    if (outcome === 'price-changed') return { kind: outcome };
    return { kind: outcome, balance: { balanceMicro: toSafeInt(balance), heldMicro: toSafeInt(held_by_others) } };
  }

  /**
   * Settles started in the same tick (a SettleMany) are taken together: their holds read in one
   * query and charged in one statement (chargeOpenHolds), two round trips for all of them.
   * Anything else (settled before, settling now, a hold placed again, the same id twice, a
   * failed batch) goes to the full transaction of its own.
   */
  settle(usage: SettleUsage, chargeFor: (hold: HoldRecord) => number): Promise<SettleOutcome | undefined> {
    return new Promise((resolve, reject) => {
      this.pendingSettles.push({ usage, chargeFor, resolve, reject });
      if (this.pendingSettles.length === 1) queueMicrotask(() => void this.settleTogether(this.pendingSettles.splice(0)));
    });
  }

  private async settleTogether(batch: PendingSettle[]): Promise<void> {
    let settled = new Map<string, SettleOutcome>();
    try {
      const holds = await readHolds(this.db, [...new Set(batch.map((p) => p.usage.requestId))]);
      const charges = new Map<string, OpenHoldCharge>();
      for (const { usage, chargeFor } of batch) {
        const hold = holds.get(usage.requestId);
        if (hold && !charges.has(usage.requestId)) charges.set(usage.requestId, { hold, usage, amountMicro: chargeFor(hold) });
      }
      if (charges.size > 0) {
        settled = await this.db.transaction(async (tx) => {
          const done = await chargeOpenHolds(tx, [...charges.values()]);
          await this.linkSettles(tx, done.values());
          return done;
        });
      }
    } catch {
      // Nothing of the batch was applied (one statement): each settle is tried on its own below.
    }
    for (const pending of batch) {
      const outcome = settled.get(pending.usage.requestId);
      settled.delete(pending.usage.requestId);
      if (outcome) pending.resolve(outcome);
      else this.settleInTransaction(pending.usage, pending.chargeFor).then(pending.resolve, pending.reject);
    }
  }

  /** A request id that place_hold found held or settled: what it is now (placed anew if it vanished since). */
  private async placeHoldOfKnownId(hold: NewHold): Promise<HoldOutcome> {
    const existing = await readHold(this.db, hold.requestId);
    if (existing)
      return { kind: 'already-held', hold: existing, balance: await balanceBeside(this.db, existing.accountId, existing.amountMicro) };
    return (await alreadySettled(this.db, hold.requestId)) ?? this.placeHold(hold);
  }

  private settleInTransaction(usage: SettleUsage, chargeFor: (hold: HoldRecord) => number): Promise<SettleOutcome | undefined> {
    return this.db.transaction(async (tx) => {
      const before = await earlierSettle(tx, usage.requestId);
      if (before) return before;
      const taken = await tx.query<HoldRow>(`DELETE FROM billing.holds WHERE request_id = $1 RETURNING ${HOLD_COLUMNS}`, [usage.requestId]);
      // No hold: unknown, or a concurrent settle took it and has committed its ledger row by now.
      if (!taken.rows[0]) return earlierSettle(tx, usage.requestId);
      const hold = toHold(taken.rows[0]);
      const amountMicro = chargeFor(hold);
      const { rows } = await tx.query<LedgerRow>(
        `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
           output_micro_per_million, amount_micro, paid, usage_estimated, request_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9, billing.ledger_time($1)) RETURNING ${LEDGER_COLUMNS}`,
        [
          hold.requestId,
          hold.accountId,
          hold.model,
          usage.promptTokens,
          usage.completionTokens,
          hold.inputMicroPerMillion,
          hold.outputMicroPerMillion,
          amountMicro,
          usage.usageEstimated,
        ],
      );
      const balance = await tx.query<{ balance_micro: Int8 }>(
        `UPDATE billing.balances SET balance_micro = balance_micro - $2, held_micro = held_micro - $3, updated_at = now()
         WHERE account_id = $1 RETURNING balance_micro`,
        [hold.accountId, amountMicro, hold.amountMicro],
      );
      if (!balance.rows[0]) throw new Error(`hold ${hold.requestId} has no balance row`);
      const outcome = { entry: toLedger(rows[0]), balanceMicro: toSafeInt(balance.rows[0].balance_micro), repeated: false };
      await this.linkSettles(tx, [outcome]);
      return outcome;
    });
  }

  recordFree(usage: FreeUsage): Promise<FreeOutcome> {
    return this.db.transaction((tx) => recordFreeUsage(tx, usage));
  }

  async releaseHold(requestId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ n: number }>(RELEASE_ONE_HOLD, [requestId]);
    return rows[0].n > 0;
  }

  async renewHolds(requestIds: string[]): Promise<number> {
    if (requestIds.length === 0) return 0;
    const { rowCount } = await this.db.query('UPDATE billing.holds SET renewed_at = now() WHERE request_id = ANY($1::text[])', [
      requestIds,
    ]);
    return rowCount ?? 0;
  }

  async releaseHoldsOlderThan(ttlSeconds: number, limit: number): Promise<number> {
    let released = 0;
    while (released < limit) {
      const { rows } = await this.db.query<{ n: number }>(RELEASE_ONE_STALE_HOLD, [ttlSeconds]);
      if (rows[0].n === 0) break;
      released += rows[0].n;
    }
    return released;
  }
}
