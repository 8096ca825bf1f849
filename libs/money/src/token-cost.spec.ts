import { chargeWithinHold, tokenCostMicro } from './token-cost';

const flash = { inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 4_000_000 };
const pro = { inputMicroPerMillion: 4_000_000, outputMicroPerMillion: 16_000_000 };

describe('tokenCostMicro', () => {
  it('is exact when the cost is a whole number of micro-LYD', () => {
    expect(tokenCostMicro(1_000_000, 0, flash)).toBe(1_000_000n);
    expect(tokenCostMicro(1000, 8192, flash)).toBe(1000n + 32_768n);
    expect(tokenCostMicro(1000, 8192, pro)).toBe(4000n + 131_072n);
  });

  it('rounds a fraction of a micro-LYD up, never down', () => {
    const odd = { inputMicroPerMillion: 3, outputMicroPerMillion: 7 };
    expect(tokenCostMicro(1, 0, odd)).toBe(1n);
    expect(tokenCostMicro(333_333, 0, odd)).toBe(1n);
    expect(tokenCostMicro(333_334, 0, odd)).toBe(2n);
    expect(tokenCostMicro(100_000, 100_000, odd)).toBe(1n);
    expect(tokenCostMicro(100_000, 100_001, odd)).toBe(2n);
  });

  it('is zero for no tokens or a free model', () => {
    expect(tokenCostMicro(0, 0, pro)).toBe(0n);
    expect(tokenCostMicro(5000, 5000, { inputMicroPerMillion: 0, outputMicroPerMillion: 0 })).toBe(0n);
  });

  it('keeps products past 2^53 exact', () => {
    expect(tokenCostMicro(3_000_000, 0, { inputMicroPerMillion: 9_007_199_254_740_991, outputMicroPerMillion: 0 })).toBe(
      27_021_597_764_222_973n,
    );
  });

  it('refuses token counts that are not integers', () => {
    expect(() => tokenCostMicro(1.5, 0, flash)).toThrow(RangeError);
  });
});

describe('chargeWithinHold', () => {
  it('charges the cost of the tokens while it is below the hold', () => {
    expect(chargeWithinHold(1000, 500, flash, 1_000_000)).toBe(3000);
    expect(chargeWithinHold(0, 0, flash, 1_000_000)).toBe(0);
  });

  it('charges the hold, never more, when the tokens cost more', () => {
    expect(chargeWithinHold(1000, 500, flash, 2999)).toBe(2999);
    expect(chargeWithinHold(1_000_000, 32_768, pro, 0)).toBe(0);
  });
});
