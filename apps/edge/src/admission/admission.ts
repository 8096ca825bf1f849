import { CheckedChatRequest } from '@gw/chat-validation';
import { quotaV1 } from '@gw/contracts';
import { PromptMeasure } from '../domain/prompt-estimate';
import { Verdict } from './verdict';

/** A request whose body passed the edge's checks, measured. */
export interface AdmissionQuestion {
  /** The id it is held, placed and billed under (quota.v1's request_id). */
  billingId: string;
  accountId: string;
  /** The key it came with (auth-service's key id): a term of its admission, carried to its bill. */
  keyId: string;
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
  /** True when quota-service admitted it with Admit (its lease and finish say so). */
  byAdmit: boolean;
  /** Admit's time of the request (quota-service's clock), sent back in each lease and in the finish: the time it is billed under. */
  admittedAtMs?: number;
}

/**
 * What the route asks before a request runs (docs/api.md, limits and errors). Each answer is a
 * verdict: the rate headers for the route to write, and the refusal or what passed.
 */
export interface Admission {
  /** Refuses an account quota-service refused earlier in its clock minute, without a call. */
  refuseRemembered(accountId: string): Verdict;
  /** Counts a request whose body the edge refused (every request with an accepted key counts). */
  countRefusedBody(accountId: string): Promise<Verdict>;
  /** Counts, holds or reserves, and places the request. */
  admit(question: AdmissionQuestion): Promise<Verdict<Admitted>>;
}
