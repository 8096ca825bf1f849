import { chargeWithinHold, tokenCostMicro } from '@gw/money';
import { MAX_BATCH, requireId } from '@gw/service-kit';
import { DomainError } from '@gw/errors';
import { countBilled, countNotBilled } from '../../billing-metrics';
import { requireCompletionTokens, requireModel, requirePromptTokens } from '../../domain/field-bounds';
import { PriceRecord } from '../../store/billing-records';
import { HoldOutcome, HoldStore } from '../store/hold-store';

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
 * The older release's money rules: a worst-case hold placed before a request (Authorize), one
 * charge after it (Settle), a free request's ledger row (RecordFree), and the holds given back or
 * kept (ReleaseHold, RenewHolds). All amounts are integer micro-LYD.
 */
export class HoldLedger {
  // Prices as last read. Never trusted alone: placing a hold checks them against the stored
  // price in the same statement, and a changed price is read again.
  private readonly prices = new Map<string, PriceRecord>();

  constructor(private readonly store: HoldStore) {}

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

  private requireSameAccount(params: AuthorizeParams, holder: string): void {
    if (holder !== params.accountId) throw new DomainError('already-exists', `request id ${params.requestId} belongs to another account`);
  }
}
