import { quotaV1 } from '@gw/contracts';
import { AdmitDecision, AdmitRequest } from '../domain/admission';
import { FinishReport } from '../domain/request-finisher';
import { toFreeRefusal, toRequestUsage } from './free-tier-messages';
import { toHold, toHoldTerms } from './hold-message';

const Outcome = quotaV1.AdmitOutcome;

/** An AdmitRequest as the domain takes it (the same fields). */
export function toAdmitRequest(req: quotaV1.AdmitRequest): AdmitRequest {
  const {
    accountId,
    requestId,
    model,
    promptTokens,
    maxTokens,
    thinking,
    textPromptTokens,
    imageCount,
    newMessageTokens,
    jsonBytes,
    keyId,
  } = req;
  return {
    accountId,
    requestId,
    model,
    promptTokens,
    maxTokens,
    thinking,
    textPromptTokens,
    imageCount,
    newMessageTokens,
    jsonBytes,
    keyId,
  };
}

/** Admit's decision as quota.v1 answers it: the count always, and the fields of its outcome. */
export function toAdmitResponse(decision: AdmitDecision): quotaV1.AdmitResponse {
  const answer: quotaV1.AdmitResponse = {
    outcome: Outcome.ADMIT_OUTCOME_UNSPECIFIED,
    count: decision.count,
    maxTokens: 0,
    refusal: quotaV1.FreeRefusal.FREE_REFUSAL_UNSPECIFIED,
    balanceMicroLyd: 0,
    requiredMicroLyd: 0,
    placeLimit: 0,
    admittedAtMs: 0,
  };
  const admittedAtMs = decision.outcome === 'paid' || decision.outcome === 'free' ? decision.admittedAtMs : 0;
  switch (decision.outcome) {
    case 'paid':
      return { ...answer, outcome: Outcome.ADMIT_OUTCOME_PAID, hold: toHold(decision.hold), admittedAtMs };
    case 'free':
      return { ...answer, outcome: Outcome.ADMIT_OUTCOME_FREE, maxTokens: decision.maxTokens, admittedAtMs };
    case 'rate-limited':
      return { ...answer, outcome: Outcome.ADMIT_OUTCOME_RATE_LIMITED };
    case 'no-place':
      return { ...answer, outcome: Outcome.ADMIT_OUTCOME_NO_PLACE, placeLimit: decision.placeLimit };
    case 'not-covered':
      return {
        ...answer,
        outcome: Outcome.ADMIT_OUTCOME_NOT_COVERED,
        refusal: toFreeRefusal(decision.refusal),
        balanceMicroLyd: decision.balanceMicro,
        requiredMicroLyd: decision.requiredMicro,
      };
  }
}

/**
 * A FinishRequest of an admitted request (`admitted` set) as the domain takes it. One not admitted
 * (its edge never had the Admit answer, so may not know how it would have been paid) needs no payment.
 */
export function toFinishReport(req: quotaV1.FinishRequestRequest & { admitted: boolean }): FinishReport {
  const unpaid = !req.admitted && req.payment === quotaV1.Payment.PAYMENT_UNSPECIFIED;
  const record = toRequestUsage(unpaid ? { ...req, payment: quotaV1.Payment.PAYMENT_PAID } : req);
  return {
    ...record,
    admitted: req.admitted,
    ...(req.hold ? { hold: toHoldTerms(req.hold) } : {}),
    ...(req.admittedAtMs ? { admittedAtMs: req.admittedAtMs } : {}),
  };
}
