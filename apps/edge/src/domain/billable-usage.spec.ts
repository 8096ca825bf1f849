import { billableUsage } from './billable-usage';

const facts = { promptTokens: 120, maxTokens: 8192, elapsedMs: 2500 };

describe('billableUsage (docs/api.md#billing-rules)', () => {
  it('bills the usage the provider reported, not estimated', () => {
    const usage = { promptTokens: 10, completionTokens: 7 };
    expect(billableUsage({ kind: 'reported', usage }, facts)).toEqual({ usage, usageEstimated: false });
  });

  it('estimates a reply that broke off: prompt plus 20 tokens a second', () => {
    expect(billableUsage({ kind: 'partial' }, facts)).toEqual({ usage: { promptTokens: 120, completionTokens: 50 }, usageEstimated: true });
  });

  it('rounds part of a second up', () => {
    expect(billableUsage({ kind: 'partial' }, { ...facts, elapsedMs: 30 }).usage.completionTokens).toBe(1);
  });

  it('never estimates more than max_tokens', () => {
    expect(billableUsage({ kind: 'partial' }, { ...facts, maxTokens: 16, elapsedMs: 60_000 }).usage.completionTokens).toBe(16);
  });

  it('bills nothing when no part of the reply arrived', () => {
    expect(billableUsage({ kind: 'nothing' }, facts)).toEqual({ usage: { promptTokens: 0, completionTokens: 0 }, usageEstimated: false });
  });
});
