import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { RpcError } from '@gw/service-kit';
import { currentTraceCarrier, isTracing } from '@gw/telemetry';
import { FreeDecision } from '../domain/free-tier-gate';
import { FreeRefusal } from '../domain/free-request';
import { FreeTierSettings } from '../store/free-tier/free-tier-store';
import { LeaseRecord } from '../store/leases/lease-store';
import { Payment, RequestUsage } from '../store/outbox/bill-outbox';
import { endReasonOf } from './end-reason-wire';
import { toHoldTerms } from './hold-message';

const REFUSALS: Record<FreeRefusal, quotaV1.FreeRefusal> = {
  'switched-off': quotaV1.FreeRefusal.FREE_REFUSAL_SWITCHED_OFF,
  paused: quotaV1.FreeRefusal.FREE_REFUSAL_PAUSED,
  model: quotaV1.FreeRefusal.FREE_REFUSAL_MODEL,
  thinking: quotaV1.FreeRefusal.FREE_REFUSAL_THINKING,
  'request-too-large': quotaV1.FreeRefusal.FREE_REFUSAL_REQUEST_TOO_LARGE,
  'allowance-used-up': quotaV1.FreeRefusal.FREE_REFUSAL_ALLOWANCE_USED_UP,
  'allowance-too-small': quotaV1.FreeRefusal.FREE_REFUSAL_ALLOWANCE_TOO_SMALL,
  'pool-exhausted': quotaV1.FreeRefusal.FREE_REFUSAL_POOL_EXHAUSTED,
};

const PAYMENTS: Partial<Record<quotaV1.Payment, Payment>> = {
  [quotaV1.Payment.PAYMENT_PAID]: 'paid',
  [quotaV1.Payment.PAYMENT_FREE]: 'free',
};

/** A free-tier refusal as quota.v1 sends it. */
export const toFreeRefusal = (refusal: FreeRefusal): quotaV1.FreeRefusal => REFUSALS[refusal];

/** A free-tier decision as quota.v1 sends it. */
export function toReserveFreeResponse(decision: FreeDecision): quotaV1.ReserveFreeResponse {
  return decision.granted
    ? {
        granted: true,
        refusal: quotaV1.FreeRefusal.FREE_REFUSAL_UNSPECIFIED,
        maxTokens: decision.maxTokens,
        reservedTokens: decision.reservedTokens,
      }
    : { granted: false, refusal: REFUSALS[decision.refusal], maxTokens: 0, reservedTokens: 0 };
}

function paymentOf(payment: quotaV1.Payment): Payment {
  const known = PAYMENTS[payment];
  if (!known) throw new RpcError(status.INVALID_ARGUMENT, 'payment must be PAYMENT_PAID or PAYMENT_FREE');
  return known;
}

/**
 * A lease as the bill its request would come to should it lapse now (marked estimated), with the
 * hold, max_tokens and admitted time of an admitted request; INVALID_ARGUMENT without a payment.
 */
export function toLeaseRecord(lease: quotaV1.Lease): LeaseRecord {
  const { accountId, requestId, model, promptTokens, completionTokens, hold, maxTokens, final, endReason, admittedAtMs } = lease;
  return {
    requestId,
    accountId,
    model,
    payment: paymentOf(lease.payment),
    promptTokens,
    completionTokens,
    usageEstimated: true,
    ...(hold ? { hold: toHoldTerms(hold) } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(admittedAtMs ? { admittedAtMs } : {}),
    ...(final ? { final: true, ...endReasonOf(endReason) } : {}),
  };
}

/** A FinishRequest as the bill it queues; INVALID_ARGUMENT without a payment. */
export function toRequestUsage(req: quotaV1.FinishRequestRequest): RequestUsage {
  const payment = paymentOf(req.payment);
  return {
    requestId: req.requestId,
    accountId: req.accountId,
    model: req.model,
    payment,
    promptTokens: req.promptTokens,
    completionTokens: req.completionTokens,
    usageEstimated: req.usageEstimated,
    ...endReasonOf(req.endReason),
    ...(isTracing() ? { traceContext: currentTraceCarrier() } : {}),
  };
}

/** The fields of a SetFreeTierSettingsRequest that are set. */
export function toSettingsChange(req: quotaV1.SetFreeTierSettingsRequest): Partial<FreeTierSettings> {
  const change: Partial<FreeTierSettings> = {};
  if (req.dailyTokens !== undefined) change.dailyTokens = req.dailyTokens;
  if (req.poolTokens !== undefined) change.poolTokens = req.poolTokens;
  if (req.paused !== undefined) change.paused = req.paused;
  if (req.enabled !== undefined) change.enabled = req.enabled;
  return change;
}
