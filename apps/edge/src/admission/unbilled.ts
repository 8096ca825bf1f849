import { quotaV1 } from '@gw/contracts';
import { FinishedRequest } from '../domain/finish-sender';
import { AdmissionQuestion } from './admission';

/** The end of a request that bills nothing: gives back its hold or free reservation, and its place. */
export function unbilled(q: Pick<AdmissionQuestion, 'billingId' | 'accountId' | 'checked'>, payment: quotaV1.Payment): FinishedRequest {
  return {
    billingId: q.billingId,
    accountId: q.accountId,
    model: q.checked.model,
    payment,
    usage: { promptTokens: 0, completionTokens: 0 },
    usageEstimated: false,
  };
}
