import { chargeWithinHold } from '@gw/money';
import { Logger, requireId } from '@gw/service-kit';
import { DomainError } from '@gw/errors';
import { finishTermsRefused, lapseShortfallMicro } from '../quota-metrics';
import { AdmissionStore, AdmissionTerms, FinishStep } from '../store/admission/admission-store';
import { FreeTierStore } from '../store/free-tier/free-tier-store';
import { isAdmitted, LeaseRecord, LeaseStore } from '../store/leases/lease-store';
import { FinishedRequest, LimitStore } from '../store/limits/limit-store';
import { BillOutbox, HoldTerms, NO_HOLD, OutboxBill, RequestUsage } from '../store/outbox/bill-outbox';
import { requireHold, requireModel, requireUsage } from './field-checks';

/**
 * The end of a request admitted by Admit as FinishRequest (or a lapsed lease) reports it: its usage,
 * whether the edge had the Admit answer, (paid) its hold and the time it was admitted, as the
 * request carried them (used only when the store lost its admission record). finishStepOf turns it
 * into the store's FinishStep, whose `bill` is the OutboxBill queued for billing-service.
 */
export type FinishReport = RequestUsage & { admitted: boolean; hold?: HoldTerms; admittedAtMs?: number };

/**
 * The store step (AdmissionStore.finish) that ends an admitted request: checked (INVALID_ARGUMENT
 * for a paid one without its hold), charged min(cost at the hold's prices, hold), billed when it
 * has tokens. The payment, model, hold and admitted time are the admission record's `terms` when
 * the store has it, else the ones the request carried (the store lost the record); the key is the
 * record's only (the store's finish step adds it when `terms` were not read). Also what a
 * final lease's renewal finishes again when the store lost the finish.
 */
export function finishStepOf(end: FinishReport, lapsed = false, terms?: AdmissionTerms): FinishStep {
  const { accountId, requestId } = end;
  requireId('account_id', accountId);
  requireId('request_id', requestId);
  requireModel(end.model);
  const tokens = requireUsage(end.promptTokens, end.completionTokens);
  const { usageEstimated } = end;
  const payment = terms?.payment ?? end.payment;
  if (!end.admitted)
    return { accountId, requestId, admitted: false, payment, tokens: 0, usageEstimated, lapsed, chargeMicro: 0, bill: undefined };
  const hold = payment === 'paid' ? requireHold(terms?.hold ?? end.hold) : NO_HOLD;
  const chargeMicro = payment === 'paid' ? chargeWithinHold(end.promptTokens, end.completionTokens, hold, hold.amountMicro) : 0;
  const admittedAtMs = terms?.admittedAtMs ?? end.admittedAtMs;
  const bill: OutboxBill | undefined =
    tokens > 0
      ? {
          kind: 'bill',
          requestId,
          accountId,
          model: terms?.model ?? end.model,
          payment,
          promptTokens: end.promptTokens,
          completionTokens: end.completionTokens,
          usageEstimated,
          ...(lapsed ? { endReason: 'recovered' as const } : end.endReason ? { endReason: end.endReason } : {}),
          hold,
          chargeMicro,
          ...(admittedAtMs ? { admittedAtMs } : {}),
          ...(terms?.keyId ? { keyId: terms.keyId } : {}),
          ...(end.traceContext ? { traceContext: end.traceContext } : {}),
        }
      : undefined;
  return { accountId, requestId, admitted: true, payment, tokens, usageEstimated, lapsed, chargeMicro, bill };
}

/** Whether a lease is of a request admitted by Admit: a paid one has the hold, and the edge renews any such lease with its max_tokens. */
export const isAdmittedLease = (lease: LeaseRecord): boolean =>
  isAdmitted(lease) || (lease.payment === 'free' && lease.maxTokens !== undefined);

/** Finishes the lapsed leases of the older release's path (legacy/older-request-finisher.ts). */
export interface OlderLapses {
  finishLapsed(lease: LeaseRecord): Promise<FinishedRequest>;
}

/** The stores a RequestFinisher ends requests in. */
export interface FinisherStores {
  limits: LimitStore;
  freeTier: FreeTierStore;
  outbox: BillOutbox;
  leases: LeaseStore;
  admission: AdmissionStore;
}

/**
 * The end of one API request (quota.v1 FinishRequest), once per request id.
 *
 * A request admitted by Admit (`admitted` set) ends in one atomic step (AdmissionStore.finish):
 * its place freed, usage counted, the hold turned into its charge, min(cost of the tokens at the
 * hold's prices, the hold), with the rest back in the line, a free reservation settled, the lease
 * ended and the bill queued when there are tokens to bill. Not admitted (the edge never had the
 * answer): whatever the admission took is given back and nothing is billed.
 *
 * A lapsed lease of the older release's path is finished by `older` (legacy/), while that path is served.
 */
export class RequestFinisher {
  constructor(
    private readonly stores: FinisherStores,
    private readonly logger?: Logger,
    private readonly older?: OlderLapses,
  ) {}

  /**
   * Finishes a request admitted by Admit; see the class comment. Its money is the one Admit fixed:
   * payment, prices and hold come from its admission record (the copy the request carries only
   * when the store lost it), and a FinishRequest that restates them otherwise is refused
   * (INVALID_ARGUMENT, logged and counted) before anything changes. INVALID_ARGUMENT for a paid
   * one without a hold anywhere. `lapsed`: the reaper finishes it from its lease (an estimate that
   * the edge's real bill, should it come after all, corrects); a lease that disagrees is not
   * refused (the request is still charged, at its admission's terms).
   */
  async finishAdmitted(end: FinishReport, lapsed = false): Promise<FinishedRequest> {
    requireId('account_id', end.accountId);
    requireId('request_id', end.requestId);
    // A finish that restates its terms is checked against the admission record in the finish's own
    // store step (one round trip); one that leaves the hold out, or a lapse (whose renewals are no
    // check), reads the record first and is charged from it.
    const restates = end.admitted && !lapsed && (end.payment === 'free' || end.hold !== undefined);
    const terms = end.admitted && !restates ? await this.stores.admission.terms(end) : undefined;
    const finish = finishStepOf(end, lapsed, terms);
    if (restates) finish.restated = { payment: end.payment, model: end.model, hold: end.hold, admittedAtMs: end.admittedAtMs };
    const { released, repeated, shortfallMicro, refused } = await this.stores.admission.finish(finish);
    if (refused) {
      finishTermsRefused.inc({ field: refused });
      this.logger?.warn('finish refused: it disagrees with its admission', {
        billingId: end.requestId,
        accountId: end.accountId,
        field: refused,
      });
      throw new DomainError(
        'invalid-argument',
        `the finish disagrees with its admission (${refused}): a finish carries only what happened`,
      );
    }
    if (shortfallMicro > 0) {
      lapseShortfallMicro.inc(shortfallMicro);
      this.logger?.warn('late real bill corrects a lapse estimate beyond what the line carries: shortfall', {
        billingId: end.requestId,
        accountId: end.accountId,
        shortfallMicro,
      });
    }
    return { released, repeated };
  }

  /**
   * Finishes a request whose lease lapsed, from its last renewal (estimated): one admitted by
   * Admit (a paid lease has the hold, and the edge renews any such lease with its max_tokens) as
   * Admit's FinishRequest would, a paid one charged at the hold's prices, so that the edge's real
   * bill, arriving late, is queued once (the lapse is remembered); one of the older release's path by `older`.
   */
  async finishLapsed(lease: LeaseRecord): Promise<FinishedRequest> {
    if (!isAdmittedLease(lease) && this.older) return this.older.finishLapsed(lease);
    return this.finishAdmitted({ ...lease, usageEstimated: true, admitted: true }, true);
  }
}
