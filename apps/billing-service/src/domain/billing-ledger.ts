import { chargeWithinHold, MAX_MICRO_LYD, tokenCostMicro } from '@gw/money';
import { AuditActor, MAX_BATCH, optionalId, requireCount, requireId } from '@gw/service-kit';
import { countBilled, countNotBilled } from '../billing-metrics';
import { PriceRecord } from '../store/billing-records';
import { BalanceChange, BillingStore, HoldOutcome } from '../store/billing-store';

/** The longest reason an operator may give for a balance change. */
const MAX_REASON_LENGTH = 500;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** What comes with an operator's balance change: why, who asked, and the key that makes it once. */
export interface ChangeNote {
  reason?: string;
  madeBy?: string;
  idempotencyKey?: string;
}
import { requireCompletionTokens, requireModel, requirePrice, requirePromptTokens } from './field-bounds';
import { PriceFeed } from './price-feed';
import { DomainError } from '@gw/errors';

/** A request to hold the worst case of a paid request. */
export interface AuthorizeParams {
  requestId: string;
  accountId: string;
  model: string;
  promptTokens: number;
  maxTokens: number;
}

/** Whether the worst case is held; amounts in micro-LYD, as a 402 shows them. */
export interface AuthorizeDecision {
  approved: boolean;
  /** The account's balance, holds of running requests not subtracted. */
  balanceMicro: number;
  /** The smallest balance that would run the request now: its worst case plus what the account's other requests hold. */
  requiredMicro: number;
}

/** The real usage of an authorized request. */
export interface SettleParams {
  requestId: string;
  promptTokens: number;
  completionTokens: number;
  usageEstimated: boolean;
}

/** The usage of a free request, for its ledger row. */
export interface FreeParams extends SettleParams {
  accountId: string;
  model: string;
}

/** The charge of a request and the balance after it, micro-LYD. */
export interface SettleResult {
  chargedMicro: number;
  balanceMicro: number;
}

function toSafeMicro(amount: bigint): number {
  if (amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new DomainError('out-of-range', 'amount too large');
  return Number(amount);
}

/**
 * The rules of money: worst-case holds before a request, one charge after it, balances and
 * prices. All amounts are integer micro-LYD.
 */
export class BillingLedger {
  // Prices as last read. Never trusted alone: placing a hold checks them against the stored
  // price in the same statement, and a changed price is read again.
  private readonly prices = new Map<string, PriceRecord>();

  constructor(
    private readonly store: BillingStore,
    private readonly priceFeed: Pick<PriceFeed, 'publish'>,
  ) {}

  private async loadPrice(model: string): Promise<PriceRecord> {
    const price = await this.store.getPrice(model);
    if (!price) throw new DomainError('failed-precondition', `model ${model} has no price`);
    this.prices.set(model, price);
    return price;
  }

  /**
   * Holds the worst case, ceil(prompt × input + max_tokens × output) / 1e6, when the balance
   * minus what the account's other requests hold covers it. A repeated request id is approved
   * again when it holds (or has settled) without a second hold. Once `callerGone()` says so (the
   * caller's deadline passed, or it cancelled) no hold is placed, and one this call placed
   * meanwhile is released: the caller never learns of it, so it would block the balance until swept.
   */
  async authorize(params: AuthorizeParams, callerGone: () => boolean = () => false): Promise<AuthorizeDecision> {
    requireId('request_id', params.requestId);
    requireId('account_id', params.accountId);
    requireModel(params.model);
    requirePromptTokens(params.promptTokens);
    requireCompletionTokens('max_tokens', params.maxTokens);
    let price = this.prices.get(params.model) ?? (await this.loadPrice(params.model));
    let worstMicro: number;
    let outcome: HoldOutcome;
    for (;;) {
      worstMicro = toSafeMicro(tokenCostMicro(params.promptTokens, params.maxTokens, price));
      if (callerGone()) throw new DomainError('cancelled', 'the caller has gone: no hold placed');
      outcome = await this.store.placeHold({
        requestId: params.requestId,
        accountId: params.accountId,
        model: params.model,
        amountMicro: worstMicro,
        inputMicroPerMillion: price.inputMicroPerMillion,
        outputMicroPerMillion: price.outputMicroPerMillion,
      });
      if (outcome.kind !== 'price-changed') break;
      price = await this.loadPrice(params.model);
    }
    if (outcome.kind === 'held' && callerGone()) {
      await this.store.releaseHold(params.requestId);
      throw new DomainError('cancelled', 'the caller went away while its hold was placed: released');
    }
    const othersHold = outcome.balance.heldMicro;
    const decide = (approved: boolean, worst: number): AuthorizeDecision => ({
      approved,
      balanceMicro: outcome.balance.balanceMicro,
      requiredMicro: toSafeMicro(BigInt(worst) + BigInt(othersHold)),
    });
    switch (outcome.kind) {
      case 'held':
      case 'refused':
        return decide(outcome.kind === 'held', worstMicro);
      case 'already-held':
        this.requireSameAccount(params, outcome.hold.accountId);
        return decide(true, outcome.hold.amountMicro);
      case 'already-settled':
        this.requireSameAccount(params, outcome.entry.accountId);
        return decide(true, toSafeMicro(tokenCostMicro(params.promptTokens, params.maxTokens, outcome.entry)));
    }
  }

  /**
   * Charges the real usage at the prices of the hold, capped by the hold, and releases the
   * rest; exactly once per request id (a repeat returns the first charge).
   */
  async settle(params: SettleParams): Promise<SettleResult> {
    requireId('request_id', params.requestId);
    requirePromptTokens(params.promptTokens);
    requireCompletionTokens('completion_tokens', params.completionTokens);
    const outcome = await this.store.settle(params, (hold) =>
      chargeWithinHold(params.promptTokens, params.completionTokens, hold, hold.amountMicro),
    );
    if (!outcome) {
      countNotBilled('paid', 'refused');
      throw new DomainError('not-found', `request ${params.requestId} has no hold to settle`);
    }
    if (outcome.repeated) countNotBilled('paid', 'repeated');
    else countBilled(outcome.entry);
    return { chargedMicro: outcome.entry.amountMicro, balanceMicro: outcome.balanceMicro };
  }

  /**
   * Writes a free request's ledger row (amount 0, paid=false) exactly once per request id;
   * true when this call wrote it. Refused when the id has a paid hold or is another account's.
   */
  async recordFree(params: FreeParams): Promise<boolean> {
    requireId('request_id', params.requestId);
    requireId('account_id', params.accountId);
    requireModel(params.model);
    requirePromptTokens(params.promptTokens);
    requireCompletionTokens('completion_tokens', params.completionTokens);
    const outcome = await this.store.recordFree(params);
    if (outcome.kind === 'has-hold' || outcome.entry.accountId !== params.accountId) {
      countNotBilled('free', 'refused');
      if (outcome.kind === 'has-hold')
        throw new DomainError('failed-precondition', `request ${params.requestId} is a paid request: settle it`);
      throw new DomainError('already-exists', `request id ${params.requestId} belongs to another account`);
    }
    if (outcome.kind === 'recorded') countBilled(outcome.entry);
    else countNotBilled('free', 'repeated');
    return outcome.kind === 'recorded';
  }

  /** Gives back the hold of a request that will not run; nothing is charged. */
  releaseHold(requestId: string): Promise<boolean> {
    requireId('request_id', requestId);
    return this.store.releaseHold(requestId);
  }

  /** Keeps the holds of running requests from the sweeper; ids without a hold are passed over. */
  async renewHolds(requestIds: string[]): Promise<number> {
    if (requestIds.length > MAX_BATCH) throw new DomainError('invalid-argument', `at most ${MAX_BATCH} request ids`);
    requestIds.forEach((id) => requireId('request_id', id));
    return this.store.renewHolds(requestIds);
  }

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

  private requireSameAccount(params: AuthorizeParams, holder: string): void {
    if (holder !== params.accountId) throw new DomainError('already-exists', `request id ${params.requestId} belongs to another account`);
  }
}
