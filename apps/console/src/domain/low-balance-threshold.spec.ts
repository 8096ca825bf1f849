import { readThreshold } from './low-balance-threshold';

describe('readThreshold', () => {
  it('reads LYD amounts of at least 0 with up to 6 decimals, exactly, as micro-LYD', () => {
    expect(readThreshold('2.5')).toEqual({ ok: true, micro: 2_500_000 });
    expect(readThreshold(' 10 ')).toEqual({ ok: true, micro: 10_000_000 });
    expect(readThreshold('0')).toEqual({ ok: true, micro: 0 });
    expect(readThreshold('0.000001')).toEqual({ ok: true, micro: 1 });
    expect(readThreshold('4.999954')).toEqual({ ok: true, micro: 4_999_954 });
    expect(readThreshold('9007199254.740991')).toEqual({ ok: true, micro: Number.MAX_SAFE_INTEGER });
  });

  it('takes an empty field as no threshold', () => {
    expect(readThreshold('')).toEqual({ ok: true, micro: undefined });
    expect(readThreshold('   ')).toEqual({ ok: true, micro: undefined });
  });

  it('says why an amount is refused', () => {
    expect(readThreshold('-1')).toEqual({ ok: false, problem: 'The threshold cannot be below 0 LYD.' });
    expect(readThreshold('-0')).toEqual({ ok: false, problem: 'The threshold cannot be below 0 LYD.' });
    expect(readThreshold('1.0000001')).toEqual({
      ok: false,
      problem: 'The threshold has more than 6 decimals: the smallest amount is 0.000001 LYD.',
    });
    expect(readThreshold('9007199254.740992')).toEqual({
      ok: false,
      problem: 'The threshold is beyond 9007199254.740991 LYD, the largest amount kept exactly.',
    });
    for (const text of ['abc', '1e3', '0x10', '1,5', '5 LYD', 'NaN', 'Infinity', '.5', '5.']) {
      expect(readThreshold(text)).toEqual({
        ok: false,
        problem: expect.stringMatching(
          /^The threshold is not an amount in LYD: ".*" \(write digits, a point and up to 6 decimals, e\.g\. 12\.5\)\.$/,
        ),
      });
    }
    expect(readThreshold('1'.repeat(33))).toEqual({
      ok: false,
      problem: 'The threshold is longer than 32 characters: write an amount in LYD, e.g. 12.5.',
    });
  });
});
