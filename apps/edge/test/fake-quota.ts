import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { AdmissionCalls } from '../src/admission/chat-admission';

const { AdmitOutcome } = quotaV1;

/** A count in the minute that ends at `resetUnixSeconds`: `remaining` left of `limit`. */
export const countOf = (remaining: number, limit = 30): quotaV1.CountRequestResponse => ({
  allowed: remaining >= 0,
  limit,
  remaining: Math.max(0, remaining),
  resetUnixSeconds: 1_900_000_060,
  retryAfterSeconds: remaining >= 0 ? 0 : 17,
  nowUnixMs: 1_900_000_043_000,
});

/** Admit's answer with `outcome` and a count of `remaining` (negative: over the limit). */
export const admitAnswer = (
  outcome: quotaV1.AdmitOutcome,
  remaining: number,
  more: Partial<quotaV1.AdmitResponse> = {},
): quotaV1.AdmitResponse => ({
  ...quotaV1.AdmitResponse.fromPartial({ outcome, count: countOf(remaining) }),
  admittedAtMs: outcome === AdmitOutcome.ADMIT_OUTCOME_PAID || outcome === AdmitOutcome.ADMIT_OUTCOME_FREE ? 1_900_000_043_001 : 0,
  ...more,
});

/** quota-service, in process: Admit answers `admit`; CountRequest answers `count`. Every call is kept. */
export class FakeQuota implements AdmissionCalls {
  readonly admits: quotaV1.AdmitRequest[] = [];
  readonly counts: string[] = [];

  constructor(
    public admitWith: () => quotaV1.AdmitResponse = () => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_PAID, 29),
    public countWith: () => quotaV1.CountRequestResponse = () => countOf(29),
  ) {}

  async admit(request: quotaV1.AdmitRequest): Promise<quotaV1.AdmitResponse> {
    this.admits.push(request);
    return this.admitWith();
  }

  async countRequest(accountId: string): Promise<quotaV1.CountRequestResponse> {
    this.counts.push(accountId);
    return this.countWith();
  }
}

/** The error a gRPC call fails with when quota-service cannot be reached. */
export const unavailable = (): Error => Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: status.UNAVAILABLE });
