import { ReplyProgress } from './reply-progress';

describe('ReplyProgress', () => {
  const facts = { promptTokens: 500, maxTokens: 100 };
  afterEach(() => jest.useRealTimers());

  it('bills nothing before any part of the reply arrived', () => {
    expect(new ReplyProgress().billableNow(facts)).toEqual({ usage: { promptTokens: 0, completionTokens: 0 }, usageEstimated: false });
  });

  it('once a part arrived, bills the prompt plus 20 tokens a second since the provider call, at most max_tokens', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const progress = new ReplyProgress();
    progress.partArrived();
    jest.setSystemTime(1_002_500);
    expect(progress.billableNow(facts)).toEqual({ usage: { promptTokens: 500, completionTokens: 50 }, usageEstimated: true });
    jest.setSystemTime(1_060_000);
    expect(progress.billableNow(facts).usage.completionTokens).toBe(100);
  });

  it("bills the provider's reported usage once it came, whatever arrives after", () => {
    const progress = new ReplyProgress();
    progress.usageReported({ promptTokens: 7, completionTokens: 9 });
    progress.partArrived();
    expect(progress.billableNow(facts)).toEqual({ usage: { promptTokens: 7, completionTokens: 9 }, usageEstimated: false });
  });

  it('says once that the reply began, at its first part or its usage, whichever comes first', () => {
    let began = 0;
    const progress = new ReplyProgress(() => began++);
    expect(began).toBe(0);
    progress.partArrived();
    progress.partArrived();
    progress.usageReported({ promptTokens: 7, completionTokens: 9 });
    expect(began).toBe(1);
    const usageFirst = new ReplyProgress(() => began++);
    usageFirst.usageReported({ promptTokens: 7, completionTokens: 9 });
    usageFirst.partArrived();
    expect(began).toBe(2);
  });
});
