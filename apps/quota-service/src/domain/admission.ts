import { MAX_PROMPT_TOKENS } from '@gw/bounds';
import { tokenCostMicro } from '@gw/money';
import { Logger, requireCount, requireId } from '@gw/service-kit';
import { lineExtensions } from '../quota-metrics';
import { AdmissionStore, AdmitResult, AdmitStep, CreditTotals } from '../store/admission/admission-store';
import { LeaseRecord } from '../store/leases/lease-store';
import { HoldTerms, Payment } from '../store/outbox/bill-outbox';
import { CreditLender, LineExtension } from './credit-lender';
import { requireKeyId, requireModel } from './field-checks';
import { FreeTierGate, requireFreeRequest } from './free-tier-gate';
import { FreeRefusal, FreeRequest } from './free-request';
import { PriceBook } from './price-book';
import { CountOutcome, toCountOutcome } from './account-limits';
import { DomainError } from '@gw/errors';

/** `all`: an extension lends the whole unheld balance (the default). `need`: only what the request lacks (while older edges hold through billing's Authorize). */
export type CreditLinePolicy = 'all' | 'need';

/** How admissions are made. */
export interface AdmissionSettings {
  leaseTtlMs: number;
  linePolicy: CreditLinePolicy;
  /** Without a price table, how long an Admit waits for the price watch to reopen before answering UNAVAILABLE. */
  priceWaitMs: number;
}

/** An API request to admit (quota.v1 AdmitRequest): the free tier's facts, the prompt tokens to hold and the key it came with. */
export interface AdmitRequest extends FreeRequest {
  promptTokens: number;
  /** auth-service's key id; '' from an older edge (its bill then names no key). */
  keyId: string;
}

/** What Admit answers; the count on every outcome. */
export type AdmitDecision =
  | { outcome: 'paid'; count: CountOutcome; hold: HoldTerms; admittedAtMs: number }
  | { outcome: 'free'; count: CountOutcome; maxTokens: number; admittedAtMs: number }
  | { outcome: 'rate-limited'; count: CountOutcome }
  | { outcome: 'no-place'; count: CountOutcome; placeLimit: number }
  | { outcome: 'not-covered'; count: CountOutcome; refusal: FreeRefusal; balanceMicro: number; requiredMicro: number };

const available = (c: CreditTotals): number => c.granted - c.charged - c.returned - c.held;
const gone = () => new DomainError('aborted', 'the request was finished before it was admitted: its edge gave up on it');

/** The lease an admission starts: the bill of a request that ends now (nothing), its max_tokens and, paid, its hold. */
function leaseOf(request: AdmitRequest, payment: Payment, maxTokens: number, hold?: HoldTerms): LeaseRecord {
  const { accountId, requestId, model } = request;
  return {
    requestId,
    accountId,
    model,
    payment,
    promptTokens: 0,
    completionTokens: 0,
    usageEstimated: true,
    maxTokens,
    ...(hold ? { hold } : {}),
  };
}

/**
 * The admission of an API request (docs/architecture.md#one-request-start-to-end; quota.v1 Admit). Its worst case
 * is priced from the PriceBook and one atomic store step counts it, holds the worst case in the
 * account's credit line, takes a place and starts its lease. Only when the line does not cover
 * it is billing-service asked to extend the line, and the step taken again without counting; a
 * request still not covered is tried as a free request (FreeTierGate, as ReserveFree), placed by
 * a third step, or refused with the 402 figures: `balance` as billing-service has it and
 * `required` = worst + held here + charges not yet applied there + held outside the line there,
 * so that it is not covered exactly when balance < required (`requiredLyd`, docs/api.md#errors).
 */
export class Admission {
  constructor(
    private readonly store: AdmissionStore,
    private readonly prices: PriceBook,
    private readonly lender: CreditLender,
    private readonly freeTier: FreeTierGate,
    private readonly settings: Readonly<AdmissionSettings>,
    private readonly logger: Logger,
  ) {}

  /** Admits, or refuses, one request; see the class comment. A caller gone before the first step changes nothing. */
  async admit(request: AdmitRequest, callerGone: () => boolean): Promise<AdmitDecision> {
    requireFreeRequest(request);
    requireModel(request.model);
    requireCount('prompt_tokens', request.promptTokens, MAX_PROMPT_TOKENS);
    const keyId = requireKeyId(request.keyId);
    if (this.prices.version === undefined) await this.prices.wait(this.settings.priceWaitMs);
    const prices = this.prices.priceOf(request.model);
    const hold: HoldTerms = { amountMicro: Number(tokenCostMicro(request.promptTokens, request.maxTokens, prices)), ...prices };
    if (callerGone()) throw new DomainError('cancelled', 'the caller has gone: nothing admitted');
    const paid: AdmitStep = {
      accountId: request.accountId,
      requestId: request.requestId,
      mode: 'count',
      payment: 'paid',
      worstMicro: hold.amountMicro,
      lease: leaseOf(request, 'paid', request.maxTokens, hold),
      leaseTtlMs: this.settings.leaseTtlMs,
      keyId,
    };
    const first = await this.store.admit(paid);
    const count = toCountOutcome(first.count);
    if (first.outcome !== 'not-covered') return this.decided(first, count, await this.heldTerms(first, request, hold), request);
    const line = await this.extend(request.accountId, first.credit, hold.amountMicro);
    let credit = first.credit;
    if (line.grantedTotalMicro > credit.granted) {
      const merge = { granted: line.grantedTotalMicro, charged: line.chargedTotalMicro, returned: line.returnedTotalMicro };
      const again = await this.store.admit({ ...paid, mode: 'nocount', merge });
      if (again.outcome !== 'not-covered') return this.decided(again, count, await this.heldTerms(again, request, hold), request);
      credit = again.credit;
    }
    const requiredMicro = hold.amountMicro + credit.held + (credit.charged - line.chargedTotalMicro) + line.heldOutsideMicro;
    return this.free(request, count, { balanceMicro: line.balanceMicro, requiredMicro });
  }

  /** What the account's running paid requests hold now, micro-LYD (quota.v1 GetHeld): the `held` of its line. */
  async heldMicro(accountId: string): Promise<number> {
    return (await this.store.credit(requireId('account_id', accountId))).held;
  }

  /** Asks billing-service for more line; UNAVAILABLE when it does not answer (the line cannot be judged). */
  private async extend(accountId: string, credit: CreditTotals, worstMicro: number): Promise<LineExtension> {
    const uncoveredMicro = worstMicro - available(credit);
    const need = this.settings.linePolicy === 'need' ? uncoveredMicro : 0;
    try {
      const line = await this.lender.extend({
        accountId,
        returnedTotalMicro: credit.returned,
        needMicro: need,
        grantedTotalMicro: credit.granted,
        uncoveredMicro,
      });
      lineExtensions.inc({ outcome: line.grantedTotalMicro > credit.granted ? 'grown' : 'unchanged' });
      return line;
    } catch (err) {
      lineExtensions.inc({ outcome: 'failed' });
      this.logger.warn('credit line not extended: billing-service did not answer', { accountId, err });
      throw new DomainError('unavailable', 'billing-service unavailable: the credit line cannot be extended');
    }
  }

  /** The balance does not cover it: a free request when the free tier grants it and a place is free, else the refusal. */
  private async free(
    request: AdmitRequest,
    count: CountOutcome,
    figures: { balanceMicro: number; requiredMicro: number },
  ): Promise<AdmitDecision> {
    const decision = await this.freeTier.reserve(request);
    if (!decision.granted) return { outcome: 'not-covered', count, refusal: decision.refusal, ...figures };
    const lease = leaseOf(request, 'free', decision.maxTokens);
    const { accountId, requestId } = request;
    const placed = await this.store.admit({
      accountId,
      requestId,
      mode: 'nocount',
      payment: 'free',
      worstMicro: 0,
      lease,
      leaseTtlMs: this.settings.leaseTtlMs,
      keyId: requireKeyId(request.keyId),
    });
    if (placed.outcome === 'admitted') return { outcome: 'free', count, maxTokens: decision.maxTokens, admittedAtMs: placed.admittedAtMs };
    await this.freeTier.giveBack(accountId, requestId);
    if (placed.outcome === 'no-place') return { outcome: 'no-place', count, placeLimit: placed.placeLimit };
    throw gone();
  }

  /**
   * The hold a repeated admission answers: the one its admission record fixed (the prices may have
   * changed since, and its finish is checked against the record), else `hold` at today's prices.
   */
  private async heldTerms(result: AdmitResult, request: AdmitRequest, hold: HoldTerms): Promise<HoldTerms> {
    if (result.outcome !== 'admitted' || !result.repeated) return hold;
    return (await this.store.terms(request))?.hold ?? hold;
  }

  /** A step's decision, with the count of the step that counted the request. */
  private decided(
    result: Exclude<AdmitResult, { outcome: 'not-covered' }>,
    count: CountOutcome,
    hold: HoldTerms,
    request: AdmitRequest,
  ): AdmitDecision {
    switch (result.outcome) {
      case 'admitted':
        if (!result.repeated) return { outcome: 'paid', count, hold, admittedAtMs: result.admittedAtMs };
        // A repeat answers as the first admission did: paid with the amount it holds at the prices
        // of its admission record (today's when the record is gone), or free.
        if (result.repeatedHoldMicro !== undefined)
          return { outcome: 'paid', count, hold: { ...hold, amountMicro: result.repeatedHoldMicro }, admittedAtMs: result.admittedAtMs };
        return { outcome: 'free', count, maxTokens: this.freeTier.maxTokensOf(request), admittedAtMs: result.admittedAtMs };
      case 'rate-limited':
        return { outcome: 'rate-limited', count };
      case 'no-place':
        return { outcome: 'no-place', count, placeLimit: result.placeLimit };
      case 'gone':
        throw gone();
    }
  }
}
