import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { AppError } from '@gw/errors';
import { asksThinking } from '../domain/asks-thinking';
import { capReplyTokens } from '../domain/cap-reply-tokens';
import { freeTierRefusal } from '../domain/free-tier-refusal';
import { MinuteRefusals } from '../domain/minute-refusals';
import { FinishSender } from '../domain/finish-sender';
import { localRateRefusals } from '../edge-metrics';
import { Admission, AdmissionQuestion, Admitted } from './admission';
import { unbilled } from './unbilled';
import { countVerdict, NOT_DECIDED, rateHeaders, Verdict } from './verdict';

const { PAYMENT_PAID: PAID, PAYMENT_FREE: FREE } = quotaV1.Payment;
const Outcome = quotaV1.AdmitOutcome;

/** The quota.v1 calls admission makes (QuotaClient makes them on its EdgeCalls streams). */
export interface AdmissionCalls {
  admit(request: quotaV1.AdmitRequest): Promise<quotaV1.AdmitResponse>;
  countRequest(accountId: string): Promise<quotaV1.CountRequestResponse>;
}

/** What admission needs. */
export interface ChatAdmissionDeps {
  quota: AdmissionCalls;
  minuteRefusals: MinuteRefusals;
  finishSender: Pick<FinishSender, 'finish'>;
}

/** service-kit's answer to a call on a stream that it could not read. */
const CALL_NOT_READ = 'a call without a request';

/**
 * Whether quota-service answered a call without running it: it does not serve the method
 * (UNIMPLEMENTED), or could not read the call from its stream. Nothing was taken.
 */
export function notRun(err: unknown): boolean {
  const { code, details } = err as { code?: number; details?: string };
  return code === status.UNIMPLEMENTED || (code === status.INVALID_ARGUMENT && details === CALL_NOT_READ);
}

/** Admit's time of the request when quota-service gave one. */
const admittedAt = (answer: quotaV1.AdmitResponse): { admittedAtMs?: number } =>
  answer.admittedAtMs > 0 ? { admittedAtMs: answer.admittedAtMs } : {};

/**
 * docs/api.md, limits and errors: counts the request, holds its worst case against the balance (or, when the
 * balance does not cover it, reserves it as a free request, its reply capped) and takes its
 * place, in one quota.v1 Admit. Refusals come in the order docs/api.md gives, which quota-service
 * keeps: 429 rate_limit_error, then 402, then 429 concurrency_limit. An Admit that fails may
 * still have run (its answer lost on the way): the request is then finished as never admitted,
 * which gives back whatever was taken and keeps a late Admit from taking it.
 */
export class ChatAdmission implements Admission {
  constructor(private readonly deps: ChatAdmissionDeps) {}

  /**
   * The edge itself refuses the account for the rest of its clock minute when quota-service
   * refused it earlier in this minute: counts only grow within a minute.
   */
  refuseRemembered(accountId: string): Verdict {
    const refused = this.deps.minuteRefusals.refusal(accountId);
    if (!refused) return NOT_DECIDED;
    localRateRefusals.inc();
    return countVerdict(refused);
  }

  async countRefusedBody(accountId: string): Promise<Verdict> {
    const ticket = this.deps.minuteRefusals.ticket();
    const count = await this.deps.quota.countRequest(accountId);
    this.deps.minuteRefusals.remember(accountId, count, ticket);
    return countVerdict(count);
  }

  async admit(q: AdmissionQuestion): Promise<Verdict<Admitted>> {
    const answer = await this.ask(q);
    if (!answer.count) throw new Error('quota-service answered Admit without its count');
    const headers = rateHeaders(answer.count);
    switch (answer.outcome) {
      case Outcome.ADMIT_OUTCOME_PAID:
        return { headers, passed: { payment: PAID, checked: q.checked, hold: answer.hold, byAdmit: true, ...admittedAt(answer) } };
      case Outcome.ADMIT_OUTCOME_FREE: {
        const checked = capReplyTokens(q.checked, answer.maxTokens);
        return { headers, passed: { payment: FREE, checked, byAdmit: true, ...admittedAt(answer) } };
      }
      case Outcome.ADMIT_OUTCOME_RATE_LIMITED: {
        const verdict = countVerdict(answer.count);
        if (verdict.refused) return verdict;
        break;
      }
      case Outcome.ADMIT_OUTCOME_NOT_COVERED:
        return { headers, refused: freeTierRefusal(answer.refusal, answer) };
      case Outcome.ADMIT_OUTCOME_NO_PLACE:
        return { headers, refused: new AppError('concurrency_limit', `Too many requests at once: at most ${answer.placeLimit}.`) };
    }
    throw new Error(`quota-service answered Admit with outcome ${answer.outcome}`);
  }

  private async ask(q: AdmissionQuestion): Promise<quotaV1.AdmitResponse> {
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
        keyId: q.keyId,
      });
      if (answer.count) this.deps.minuteRefusals.remember(q.accountId, answer.count, ticket);
      return answer;
    } catch (err) {
      if (!notRun(err)) this.deps.finishSender.finish({ ...unbilled(q, PAID), admitted: false });
      throw err;
    }
  }
}
