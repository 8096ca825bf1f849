import { quotaV1 } from '@gw/contracts';
import { AppError } from '@gw/errors';
import { AdmissionQuestion, Admitted } from '../admission/admission';
import { unbilled } from '../admission/unbilled';
import { countVerdict, Verdict } from '../admission/verdict';
import { asksThinking } from '../domain/asks-thinking';
import { capReplyTokens } from '../domain/cap-reply-tokens';
import { freeTierRefusal } from '../domain/free-tier-refusal';
import { MinuteRefusals } from '../domain/minute-refusals';
import { FinishSender } from '../domain/finish-sender';
import { BillingClient } from './billing-client';
import { OlderQuotaCalls } from './older-quota-calls';

const { PAYMENT_PAID: PAID, PAYMENT_FREE: FREE } = quotaV1.Payment;

/** What the older path needs: quota-service's older calls, and billing-service's Authorize. */
export interface OlderAdmissionDeps {
  quota: { countRequest(accountId: string): Promise<quotaV1.CountRequestResponse> };
  olderQuota: OlderQuotaCalls;
  billing: BillingClient;
  minuteRefusals: MinuteRefusals;
  finishSender: Pick<FinishSender, 'finish'>;
}

type Paying = Omit<Admitted, 'byAdmit'>;

/**
 * Admission for a quota-service of the previous release, without Admit: separate calls in turn
 * (count, billing-service's hold, else a free reservation, then the place), refused in the same
 * order as Admit. Its requests are not admitted by Admit: their leases carry no max_tokens and
 * their finishes no `admitted`.
 */
export class OlderAdmission {
  constructor(private readonly deps: OlderAdmissionDeps) {}

  async admit(q: AdmissionQuestion): Promise<Verdict<Admitted>> {
    const ticket = this.deps.minuteRefusals.ticket();
    const count = await this.deps.quota.countRequest(q.accountId);
    this.deps.minuteRefusals.remember(q.accountId, count, ticket);
    const counted = countVerdict(count);
    const { headers } = counted;
    if (counted.refused) return counted;
    const paying = await this.pay(q);
    if (paying instanceof AppError) return { headers, refused: paying };
    const place = await this.deps.olderQuota.acquirePlace(q.accountId, q.billingId, placeLease(q, paying)).catch((err: unknown) => {
      // The limits cannot be checked: refuse (fail closed), and give back what was taken.
      this.deps.finishSender.finish(unbilled(q, paying.payment));
      throw err;
    });
    if (!place.granted) {
      this.deps.finishSender.finish(unbilled(q, paying.payment));
      return { headers, refused: new AppError('concurrency_limit', `Too many requests at once: at most ${place.limit}.`) };
    }
    return { headers, passed: { ...paying, byAdmit: false } };
  }

  /**
   * billing's hold, else a free reservation, else the 402. A call that fails may still have held
   * or reserved: the request is then finished unbilled, which gives back whatever was taken.
   */
  private async pay(q: AdmissionQuestion): Promise<Paying | AppError> {
    const giveBack = (payment: quotaV1.Payment) => (err: unknown) => {
      this.deps.finishSender.finish(unbilled(q, payment));
      throw err;
    };
    const hold = await this.deps.billing
      .authorize({
        requestId: q.billingId,
        accountId: q.accountId,
        model: q.checked.model,
        promptTokens: q.promptTokens,
        maxTokens: q.checked.maxTokens,
      })
      .catch(giveBack(PAID));
    if (hold.approved) return { payment: PAID, checked: q.checked };
    const free = await this.deps.olderQuota
      .reserveFree({
        accountId: q.accountId,
        requestId: q.billingId,
        model: q.checked.model,
        thinking: asksThinking(q.checked.body),
        textPromptTokens: q.prompt.textTokens,
        imageCount: q.prompt.imageCount,
        newMessageTokens: q.prompt.newMessageTokens,
        jsonBytes: q.prompt.jsonBytes,
        maxTokens: q.checked.maxTokens,
      })
      .catch(giveBack(FREE));
    if (!free.granted) return freeTierRefusal(free.refusal, hold);
    return { payment: FREE, checked: capReplyTokens(q.checked, free.maxTokens) };
  }
}

/** The lease the place starts: nothing billed yet. */
function placeLease(q: AdmissionQuestion, paying: Paying): quotaV1.Lease {
  return {
    accountId: q.accountId,
    requestId: q.billingId,
    model: paying.checked.model,
    payment: paying.payment,
    promptTokens: 0,
    completionTokens: 0,
  };
}
