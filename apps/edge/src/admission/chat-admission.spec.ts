import { quotaV1 } from '@gw/contracts';
import { AppError } from '@gw/errors';
import { MinuteRefusals } from '../domain/minute-refusals';
import { FinishedRequest } from '../domain/finish-sender';
import { AdmissionQuestion } from './admission';
import { ChatAdmission } from './chat-admission';
import { admitAnswer, countOf, FakeQuota, unavailable } from '../../test/fake-quota';

const { AdmitOutcome, Payment, FreeRefusal } = quotaV1;

const question: AdmissionQuestion = {
  billingId: 'b-1',
  accountId: 'acct-1',
  keyId: 'key-1',
  checked: {
    body: { model: 'vendor-v4-flash' },
    model: 'vendor-v4-flash',
    stream: true,
    maxTokens: 8192,
    includeUsage: true,
    imageCount: 0,
  },
  prompt: { textTokens: 10, imageCount: 0, newMessageTokens: 10, jsonBytes: 40 },
  promptTokens: 12,
};

function admissionWith(quota: FakeQuota) {
  const finishes: Array<FinishedRequest | Promise<FinishedRequest>> = [];
  const finishSender = { finish: (done: FinishedRequest | Promise<FinishedRequest>) => void finishes.push(done) };
  const admission = new ChatAdmission({ quota, minuteRefusals: new MinuteRefusals(10), finishSender });
  return { admission, finishes };
}

const RATE_HEADERS = { 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '29', 'X-RateLimit-Reset': '1900000060' };

describe('ChatAdmission', () => {
  it('passes a paid request with its hold and Admit time, and the rate headers of its count; Admit carries the key as a term', async () => {
    const hold = { amountMicroLyd: 6000, inputMicroLydPerMillion: 1, outputMicroLydPerMillion: 4 };
    const quota = new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_PAID, 29, { hold }));
    const { admission } = admissionWith(quota);
    const verdict = await admission.admit(question);
    expect(verdict).toEqual({
      headers: RATE_HEADERS,
      passed: { payment: Payment.PAYMENT_PAID, checked: question.checked, hold, byAdmit: true, admittedAtMs: 1_900_000_043_001 },
    });
    expect(quota.admits).toEqual([
      expect.objectContaining({ accountId: 'acct-1', requestId: 'b-1', promptTokens: 12, maxTokens: 8192, keyId: 'key-1' }),
    ]);
  });

  it("passes a free request with its reply capped to Admit's max_tokens", async () => {
    const { admission } = admissionWith(new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_FREE, 29, { maxTokens: 1000 })));
    const verdict = await admission.admit(question);
    expect(verdict.refused).toBeUndefined();
    if (verdict.refused) return;
    expect(verdict.passed.payment).toBe(Payment.PAYMENT_FREE);
    expect(verdict.passed.checked.maxTokens).toBe(1000);
  });

  it('refuses over the minute limit with 429 rate_limit_error, Retry-After and the rate headers, and then refuses the account itself', async () => {
    const quota = new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_RATE_LIMITED, -1));
    const { admission } = admissionWith(quota);
    const verdict = await admission.admit(question);
    expect(verdict.headers).toEqual({
      'X-RateLimit-Limit': '30',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1900000060',
      'Retry-After': '17',
    });
    expect(verdict.refused).toBeInstanceOf(AppError);
    expect(verdict.refused?.describe()).toMatchObject({ status: 429, code: 'rate_limit_error', limit: 30 });
    const remembered = admission.refuseRemembered('acct-1');
    expect(remembered.refused?.describe()).toMatchObject({ status: 429, code: 'rate_limit_error' });
    expect(remembered.headers).toMatchObject({ 'X-RateLimit-Remaining': '0' });
  });

  it('refuses with 429 concurrency_limit and no Retry-After when no place is left', async () => {
    const { admission } = admissionWith(new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_NO_PLACE, 27, { placeLimit: 3 })));
    const verdict = await admission.admit(question);
    expect(verdict.headers).toEqual({ ...RATE_HEADERS, 'X-RateLimit-Remaining': '27' });
    expect(verdict.refused?.describe()).toMatchObject({ status: 429, code: 'concurrency_limit' });
  });

  it('refuses a request neither the balance nor the free tier covers with the 402 of its refusal', async () => {
    const answer = admitAnswer(AdmitOutcome.ADMIT_OUTCOME_NOT_COVERED, 29, {
      refusal: FreeRefusal.FREE_REFUSAL_MODEL,
      balanceMicroLyd: 500_000,
      requiredMicroLyd: 1_250_000,
    });
    const { admission } = admissionWith(new FakeQuota(() => answer));
    const verdict = await admission.admit(question);
    expect(verdict.headers).toEqual(RATE_HEADERS);
    expect(verdict.refused?.describe()).toMatchObject({ status: 402, code: 'FREE_TIER_MODEL', balance: 0.5, requiredLyd: 1.25 });
  });

  it('gives back what a failed Admit may have taken (finished as never admitted) and fails with its error', async () => {
    const quota = new FakeQuota(() => {
      throw unavailable();
    });
    const { admission, finishes } = admissionWith(quota);
    await expect(admission.admit(question)).rejects.toMatchObject({ code: 14 });
    expect(await Promise.all(finishes)).toEqual([
      expect.objectContaining({ billingId: 'b-1', accountId: 'acct-1', usage: { promptTokens: 0, completionTokens: 0 }, admitted: false }),
    ]);
  });

  it("counts a request whose body was refused, and over the limit answers the 429 before the body's error", async () => {
    const quota = new FakeQuota(undefined, () => countOf(-1));
    const { admission } = admissionWith(quota);
    const verdict = await admission.countRefusedBody('acct-1');
    expect(quota.counts).toEqual(['acct-1']);
    expect(verdict.refused?.describe()).toMatchObject({ status: 429, code: 'rate_limit_error' });
    expect(verdict.headers).toMatchObject({ 'Retry-After': '17' });
  });

  it('has nothing to say about an account not refused this minute', () => {
    const { admission } = admissionWith(new FakeQuota());
    expect(admission.refuseRemembered('acct-1')).toEqual({ headers: {}, passed: true });
  });
});
