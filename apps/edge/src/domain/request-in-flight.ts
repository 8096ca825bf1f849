import { quotaV1 } from '@gw/contracts';
import { BillableUsage, billableUsage, ReplyOutcome } from './billable-usage';
import { CallerEnd, endReasonOf } from './end-reason';
import { ReplyProgress } from './reply-progress';
import { FinishedRequest } from './finish-sender';

/** What a request was admitted as; primitives only, so that neither it nor its lease keeps the body alive. */
export interface AdmittedTerms {
  /** The id it is held, placed and billed under (quota.v1's request_id). */
  billingId: string;
  accountId: string;
  model: string;
  payment: quotaV1.Payment;
  /** The reply limit sent to the provider. */
  maxTokens: number;
  /** Prompt tokens held: what a reply that broke off without usage is billed for its prompt. */
  promptTokens: number;
  /** Admit's hold (paid). */
  hold?: quotaV1.Hold;
  /** Admitted with Admit: its lease carries its max_tokens, which marks its final bill as one to keep until applied. */
  byAdmit: boolean;
  /** Admit's time of the request, carried so that a lease recreated after quota-service's store lost it keeps it. */
  admittedAtMs?: number;
}

/**
 * One admitted request from its provider call to its finish: what its lease carries at each
 * renewal (what it would be billed if it broke off now; once the reply is read, its final bill
 * and why it ended) and the finish that bills it. The lease keeper asks it for its lease.
 */
export class RequestInFlight {
  /** How far the provider's reply has come, as the relay reads it. */
  readonly progress: ReplyProgress;
  private readonly startedAt = Date.now();
  private final: BillableUsage | undefined;
  private endReason: quotaV1.EndReason | undefined;

  /** `replyBegan`: called once, when the first part of the reply arrives. */
  constructor(
    private readonly terms: AdmittedTerms,
    replyBegan?: () => void,
  ) {
    this.progress = new ReplyProgress(replyBegan);
  }

  get billingId(): string {
    return this.terms.billingId;
  }

  /** What the request is billed with, once its reply has been read to the end. */
  get finalBill(): BillableUsage | undefined {
    return this.final;
  }

  /** Its lease as it stands now. */
  leaseNow(): quotaV1.Lease {
    const { accountId, billingId, model, payment, hold, byAdmit, maxTokens, admittedAtMs, promptTokens } = this.terms;
    return {
      accountId,
      requestId: billingId,
      model,
      payment,
      ...(this.final ?? this.progress.billableNow({ promptTokens, maxTokens })).usage,
      hold,
      maxTokens: byAdmit ? maxTokens : undefined,
      admittedAtMs,
      endReason: this.endReason,
    };
  }

  /**
   * The provider's reply was read to its end (`outcome`, whole or not) and the caller's side
   * ended as `callerEnd`: from now on its lease carries its final bill. Returns its finish.
   */
  ended(outcome: ReplyOutcome, providerReplyWhole: boolean, callerEnd: CallerEnd): FinishedRequest {
    const { promptTokens, maxTokens } = this.terms;
    this.final = billableUsage(outcome, { promptTokens, maxTokens, elapsedMs: Date.now() - this.startedAt });
    this.endReason = endReasonOf(providerReplyWhole, callerEnd);
    const { billingId, accountId, model, payment, hold, byAdmit, admittedAtMs } = this.terms;
    return {
      billingId,
      accountId,
      model,
      payment,
      ...this.final,
      hold,
      admitted: byAdmit ? true : undefined,
      admittedAtMs,
      endReason: this.endReason,
    };
  }
}
