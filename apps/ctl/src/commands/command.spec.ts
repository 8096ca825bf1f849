import { CtlUsageError } from '../parse-args';
import { lydFlag } from './command';

describe('lydFlag', () => {
  it('reads exact micro-LYD', () => {
    expect(lydFlag('amount', '9007199254.740991')).toBe(9_007_199_254_740_991);
    expect(lydFlag('amount', '-0.000001')).toBe(-1);
  });

  it.each([
    ['1.0000001', '--amount has more than 6 decimals'],
    ['9007199254.740992', '--amount is beyond 9007199254.740991 LYD'],
    ['1e3', '--amount is not an amount in LYD'],
  ])('refuses %s with the reason', (text, reason) => {
    expect(() => lydFlag('amount', text)).toThrow(CtlUsageError);
    expect(() => lydFlag('amount', text)).toThrow(reason);
  });
});
