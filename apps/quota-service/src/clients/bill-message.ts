import { billingV1 } from '@gw/contracts';
import { OutboxBill, EndReason } from '../store/outbox/bill-outbox';

/** A bill's end reason as billing.v1 takes it. */
const BILLING_END_REASON: Record<EndReason, billingV1.EndReason> = {
  complete: billingV1.EndReason.END_REASON_COMPLETE,
  'caller-left': billingV1.EndReason.END_REASON_CALLER_LEFT,
  'provider-broke-off': billingV1.EndReason.END_REASON_PROVIDER_BROKE_OFF,
  recovered: billingV1.EndReason.END_REASON_RECOVERED,
};

/** A bill as billing.v1 takes it. */
export function toBill(bill: OutboxBill): billingV1.Bill {
  return {
    requestId: bill.requestId,
    accountId: bill.accountId,
    model: bill.model,
    paid: bill.payment === 'paid',
    promptTokens: bill.promptTokens,
    completionTokens: bill.completionTokens,
    usageEstimated: bill.usageEstimated,
    heldMicroLyd: bill.hold.amountMicro,
    inputMicroLydPerMillion: bill.hold.inputMicroPerMillion,
    outputMicroLydPerMillion: bill.hold.outputMicroPerMillion,
    chargeMicroLyd: bill.chargeMicro,
    ...(bill.admittedAtMs ? { admittedAtMs: bill.admittedAtMs } : {}),
    ...(bill.keyId ? { keyId: bill.keyId } : {}),
    ...(bill.endReason ? { endReason: BILLING_END_REASON[bill.endReason] } : {}),
  };
}
