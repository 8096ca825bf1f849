import { status } from '@grpc/grpc-js';
import { CheckedChatRequest } from '@gw/chat-validation';
import { quotaV1 } from '@gw/contracts';
import { AppError } from '@gw/errors';
import { Response } from 'express';
import { BillingClient } from '../clients/billing-client';
import { QuotaClient } from '../clients/quota-client';
import { asksThinking } from '../domain/asks-thinking';
import { capReplyTokens } from '../domain/cap-reply-tokens';
import { freeTierRefusal } from '../domain/free-tier-refusal';
import { MinuteCount, MinuteRefusals } from '../domain/minute-refusals';
import { PromptMeasure } from '../domain/prompt-estimate';
import { FinishedRequest, Settlement } from '../domain/settlement';
import { localRateRefusals } from '../edge-metrics';
import { setRateHeaders } from '../http/replies/rate-headers';

const { PAYMENT_PAID: PAID, PAYMENT_FREE: FREE } = quotaV1.Payment;
const Outcome = quotaV1.AdmitOutcome;

/** After an Admit answered UNIMPLEMENTED (an older quota-service), the edge asks again this much later. */
const LEGACY_RETRY_MS = 30_000;

/** What the route needs to admit a request. */
export interface AdmissionDeps {
  quota: QuotaClient;
  billing: BillingClient;
  minuteRefusals: MinuteRefusals;
  settlement: Settlement;
}

/** A request whose body passed the edge's checks, measured. */
export interface AdmissionQuestion {
  /** The id it is held, placed and billed under (quota.v1's and billing.v1's request_id). */
  billingId: string;
  accountId: string;
  checked: CheckedChatRequest;
  prompt: PromptMeasure;
  /** Prompt tokens to hold: the estimate with its margin and images. */
  promptTokens: number;
}

/** An admitted request: how it is paid and the request to forward (a free one's reply capped). */
export interface Admitted {
  payment: quotaV1.Payment;
  checked: CheckedChatRequest;
  /** Admit's hold (paid), sent back in each lease and in the finish. */
  hold?: quotaV1.Hold;
  /** True when quota-service admitted it with Admit (its finish says so); false on the older path. */
  byAdmit: boolean;
  /** Admit's time of the request (quota-service's clock), sent back in each lease and in the finish: the time it is billed under. */
  admittedAtMs?: number;
}

/** What a lease is made of besides the usage so far; primitives only, so that a lease never keeps the body alive. */
export interface LeaseTerms {
  payment: quotaV1.Payment;
  model: string;
  maxTokens: number;
  hold?: quotaV1.Hold;
  /** Admitted with Admit: its lease carries its max_tokens, paid or free, which marks its final bill as one to keep until applied. */
  byAdmit?: boolean;
  /** Admit's time of the request, carried so that a lease recreated after quota-service's store lost it keeps it. */
  admittedAtMs?: number;
}

/** The renewals of a request's lease (on the older path, the first starts with its place). */
export type LeaseOf = (terms: LeaseTerms) => () => quotaV1.Lease;

/**
 * Whether quota-service does not serve Admit. An older one answers a unary Admit UNIMPLEMENTED,
 * and an Admit on its EdgeCalls stream (a oneof case it cannot decode) as a call without a request.
 */
const OLDER_STREAM_ANSWER = 'a call without a request';
const isUnimplemented = (err: unknown): boolean => {
  const { code, details } = err as { code?: number; details?: string };
  return code === status.UNIMPLEMENTED || (code === status.INVALID_ARGUMENT && details === OLDER_STREAM_ANSWER);
};

/** Admit's time of the request when quota-service gave one (an older one answers 0). */
const admittedAt = (answer: quotaV1.AdmitResponse): { admittedAtMs?: number } =>
  answer.admittedAtMs > 0 ? { admittedAtMs: answer.admittedAtMs } : {};

/** Sets the rate headers of a count and refuses with 429 rate_limit_error when it is over the limit. */
export function applyCount(res: Response, count: MinuteCount): void {
  setRateHeaders(res, count);
  if (count.allowed) return;
  res.setHeader('Retry-After', String(count.retryAfterSeconds));
  throw new AppError('rate_limit_error', `Rate limit reached: ${count.limit} requests per minute.`, { limit: count.limit });
}

/**
 * Whether the edge itself refuses the account for the rest of its clock minute (admission.md d3):
 * quota-service refused it earlier in this minute, and counts only grow within a minute.
 */
export function refuseRememberedOverLimit(deps: Pick<AdmissionDeps, 'minuteRefusals'>, res: Response, accountId: string): void {
  const refused = deps.minuteRefusals.refusal(accountId);
  if (!refused) return;
  localRateRefusals.inc();
  applyCount(res, refused);
}

/** Counts a request that will not be admitted (its body was refused), for its headers and docs/api.md#rate-limits (every request with an accepted key counts). */
export async function countOnly(deps: Pick<AdmissionDeps, 'quota' | 'minuteRefusals'>, res: Response, accountId: string): Promise<void> {
  const ticket = deps.minuteRefusals.ticket();
  const count = await deps.quota.countRequest(accountId);
  deps.minuteRefusals.remember(accountId, count, ticket);
  applyCount(res, count);
}

/**
 * docs/api.md, limits and errors: counts the request, holds its worst case against the balance (or, when the
 * balance does not cover it, reserves it as a free request, its reply capped) and takes its
 * place, in one quota.v1 Admit. Refusals are thrown in the order docs/api.md gives, which quota-service
 * keeps: 429 rate_limit_error, then 402, then 429 concurrency_limit. An Admit that fails may
 * still have run (its answer lost on the way): the request is then finished as never admitted,
 * which gives back whatever was taken and keeps a late Admit from taking it.
 *
 * An older quota-service without Admit answers UNIMPLEMENTED, having done nothing: the request
 * then takes the older path of separate calls (count, billing's hold, free reservation, place),
 * and the edge keeps to it for LEGACY_RETRY_MS before asking again.
 */
export class ChatAdmission {
  private legacyUntilMs = 0;

  constructor(private readonly deps: AdmissionDeps) {}

  async admit(res: Response, q: AdmissionQuestion, leaseOf: LeaseOf): Promise<Admitted> {
    if (Date.now() >= this.legacyUntilMs) {
      const answer = await this.ask(q);
      if (answer) return this.decide(res, q, answer);
      this.legacyUntilMs = Date.now() + LEGACY_RETRY_MS;
    }
    return this.admitOlderWay(res, q, leaseOf);
  }

  /** The Admit answer, or undefined when quota-service does not serve Admit. */
  private async ask(q: AdmissionQuestion): Promise<quotaV1.AdmitResponse | undefined> {
    const ticket = this.deps.minuteRefusals.ticket();
    try {
      const answer = await this.deps.quota.admit({
        accountId: q.accountId,
        requestId: q.billingId,
        model: q.checked.model,
        promptTokens: q.promptTokens,
        maxTokens: q.checked.maxTokens,
        thinking: asksThinking(q.checked.body),
        textPromptTokens: q.prompt.textTokens,
        imageCount: q.prompt.imageCount,
        newMessageTokens: q.prompt.newMessageTokens,
        jsonBytes: q.prompt.jsonBytes,
      });
      if (answer.count) this.deps.minuteRefusals.remember(q.accountId, answer.count, ticket);
      return answer;
    } catch (err) {
      if (isUnimplemented(err)) return undefined;
      this.deps.settlement.finish({ ...unbilled(q, PAID), admitted: false });
      throw err;
    }
  }

  private decide(res: Response, q: AdmissionQuestion, answer: quotaV1.AdmitResponse): Admitted {
    if (!answer.count) throw new Error('quota-service answered Admit without its count');
    setRateHeaders(res, answer.count);
    switch (answer.outcome) {
      case Outcome.ADMIT_OUTCOME_PAID:
        return { payment: PAID, checked: q.checked, hold: answer.hold, byAdmit: true, ...admittedAt(answer) };
      case Outcome.ADMIT_OUTCOME_FREE:
        return { payment: FREE, checked: capReplyTokens(q.checked, answer.maxTokens), byAdmit: true, ...admittedAt(answer) };
      case Outcome.ADMIT_OUTCOME_RATE_LIMITED:
        applyCount(res, answer.count);
        break;
      case Outcome.ADMIT_OUTCOME_NOT_COVERED:
        throw freeTierRefusal(answer.refusal, answer);
      case Outcome.ADMIT_OUTCOME_NO_PLACE:
        throw new AppError('concurrency_limit', `Too many requests at once: at most ${answer.placeLimit}.`);
    }
    throw new Error(`quota-service answered Admit with outcome ${answer.outcome}`);
  }

  /** The path of separate calls, for an older quota-service. */
  private async admitOlderWay(res: Response, q: AdmissionQuestion, leaseOf: LeaseOf): Promise<Admitted> {
    await countOnly(this.deps, res, q.accountId);
    const paying = await this.payOlderWay(q);
    const lease = leaseOf({ payment: paying.payment, model: paying.checked.model, maxTokens: paying.checked.maxTokens });
    const place = await this.deps.quota.acquirePlace(q.accountId, q.billingId, lease()).catch((err: unknown) => {
      // The limits cannot be checked: refuse (fail closed), and give back what was taken.
      this.deps.settlement.finish(unbilled(q, paying.payment));
      throw err;
    });
    if (!place.granted) {
      this.deps.settlement.finish(unbilled(q, paying.payment));
      throw new AppError('concurrency_limit', `Too many requests at once: at most ${place.limit}.`);
    }
    return { ...paying, byAdmit: false };
  }

  /**
   * billing's hold, else a free reservation, else the 402. A call that fails may still have held
   * or reserved: the request is then finished unbilled, which gives back whatever was taken.
   */
  private async payOlderWay(q: AdmissionQuestion): Promise<Omit<Admitted, 'byAdmit'>> {
    const giveBack = (payment: quotaV1.Payment) => (err: unknown) => {
      this.deps.settlement.finish(unbilled(q, payment));
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
    const free = await this.deps.quota
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
    if (!free.granted) throw freeTierRefusal(free.refusal, hold);
    return { payment: FREE, checked: capReplyTokens(q.checked, free.maxTokens) };
  }
}

/** The end of a request that bills nothing: gives back its hold or free reservation, and its place. */
function unbilled(q: Pick<AdmissionQuestion, 'billingId' | 'accountId' | 'checked'>, payment: quotaV1.Payment): FinishedRequest {
  return {
    billingId: q.billingId,
    accountId: q.accountId,
    model: q.checked.model,
    payment,
    usage: { promptTokens: 0, completionTokens: 0 },
    usageEstimated: false,
  };
}
