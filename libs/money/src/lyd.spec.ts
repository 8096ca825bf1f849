import { microToLyd, parseLyd } from './lyd';

describe('parseLyd', () => {
  it.each([
    ['10', 10_000_000],
    ['12.5', 12_500_000],
    ['0.000001', 1],
    ['-3.25', -3_250_000],
    ['0.1', 100_000],
    ['  7 ', 7_000_000],
  ])('%s -> %i micro-LYD', (text, micro) => {
    expect(parseLyd(text)).toBe(micro);
  });

  it.each(['', 'abc', '1.0000001', '1e3', '1,5', '.5', '99999999999999'])('refuses %p', (text) => {
    expect(parseLyd(text)).toBeUndefined();
  });
});

describe('microToLyd', () => {
  it.each([
    [10_000_000, 10],
    [12_500_000, 12.5],
    [1, 0.000001],
    [-3_250_000, -3.25],
    [100_000, 0.1],
    [0, 0],
  ])('%i -> %d', (micro, lyd) => {
    expect(microToLyd(micro)).toBe(lyd);
  });

  it('round-trips with parseLyd', () => {
    for (const micro of [1, 999_999, 123_456_789, 30_000_001]) expect(parseLyd(String(microToLyd(micro)))).toBe(micro);
  });
});
