import { MAX_MICRO_LYD } from '@gw/money';
import { AuditActor, optionalId, requireCount, requireId } from '@gw/service-kit';
import { DomainError } from '@gw/errors';
import { PriceRecord } from '../store/billing-records';
import { BalanceChange, BillingStore } from '../store/billing-store';
import { requireModel, requirePrice } from './field-bounds';
import { PriceFeed } from './price-feed';

/** The longest reason an operator may give for a balance change. */
const MAX_REASON_LENGTH = 500;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** What comes with an operator's balance change: why, who asked, and the key that makes it once. */
export interface ChangeNote {
  reason?: string;
  madeBy?: string;
  idempotencyKey?: string;
}

/**
 * Balances and prices: an operator's balance changes, reading a balance, setting a price. All
 * amounts are integer micro-LYD; requests are billed by CreditLines (ApplyBills).
 */
export class BillingLedger {
  constructor(
    private readonly store: BillingStore,
    private readonly priceFeed: Pick<PriceFeed, 'publish'>,
  ) {}

  /**
   * Adds to (or takes from) a balance; refused, with nothing changed, when the amount is not a
   * whole number within ±MAX_MICRO_LYD (INVALID_ARGUMENT), when it would take the balance past
   * MAX_MICRO_LYD, 2^53 - 1 micro-LYD, the largest amount a number holds exactly (OUT_OF_RANGE),
   * or take money that is not there: held for running requests, or lent to quota-service as the
   * account's credit line, which must be returned first (FAILED_PRECONDITION). Under an
   * idempotency key the change is made once: the same key again answers the balance that change
   * left; the key with another account or amount is refused (ALREADY_EXISTS). Every change made
   * is an entry with its reason and who asked.
   */
  async addBalance(accountId: string, amountMicro: number, note: ChangeNote = {}): Promise<number> {
    const change: BalanceChange = {
      accountId,
      amountMicro,
      reason: note.reason ?? '',
      madeBy: note.madeBy ?? '',
      idempotencyKey: note.idempotencyKey,
    };
    requireId('account_id', accountId);
    requireCount('amount_micro_lyd', amountMicro, MAX_MICRO_LYD, -MAX_MICRO_LYD);
    optionalId('reason', change.reason, MAX_REASON_LENGTH);
    if (change.idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(change.idempotencyKey)) {
      throw new DomainError('invalid-argument', 'idempotency_key must be 1 to 128 of A-Z a-z 0-9 . _ : -');
    }
    const outcome = await this.store.addBalance(change);
    if (outcome.kind === 'applied' || outcome.kind === 'repeated') return outcome.balanceMicro;
    if (outcome.kind === 'key-used') {
      throw new DomainError(
        'already-exists',
        `idempotency key ${change.idempotencyKey} was used for another change (another account or amount)`,
      );
    }
    const current = (await this.store.getCreditLine(accountId)) ?? { balanceMicro: 0, heldMicro: 0, lineMicro: 0 };
    if (BigInt(current.balanceMicro) + BigInt(amountMicro) > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new DomainError(
        'out-of-range',
        `balance ${current.balanceMicro} micro-LYD plus ${amountMicro} would pass ${Number.MAX_SAFE_INTEGER} micro-LYD, the largest balance kept`,
      );
    }
    if (current.balanceMicro + amountMicro >= current.heldMicro && current.lineMicro > 0) {
      throw new DomainError(
        'failed-precondition',
        `balance ${current.balanceMicro} micro-LYD cannot take ${amountMicro}: ${current.lineMicro} of it is lent to quota-service as the ` +
          'credit line, which must be returned first (quota.v1 ReturnCreditLine)',
      );
    }
    throw new DomainError(
      'failed-precondition',
      `balance ${current.balanceMicro} micro-LYD (${current.heldMicro} held for running requests) cannot take ${amountMicro}`,
    );
  }

  /** The balance; 0 for an account that never had money. */
  async getBalance(accountId: string): Promise<number> {
    requireId('account_id', accountId);
    return (await this.store.getBalance(accountId))?.balanceMicro ?? 0;
  }

  /**
   * Sets a model's price, each from 0 to MAX_PRICE_MICRO_LYD_PER_MILLION; holds already placed
   * keep the prices they were placed at. Returns once every price watcher applied it or was cut.
   * The audit trail records it, made `by` (by nobody named when not given).
   */
  async setPrice(price: PriceRecord, by: AuditActor = { actor: 'unknown', reason: '' }): Promise<PriceRecord> {
    requireModel(price.model);
    requirePrice('input_micro_lyd_per_million', price.inputMicroPerMillion);
    requirePrice('output_micro_lyd_per_million', price.outputMicroPerMillion);
    return this.priceFeed.publish(price, by);
  }
}
