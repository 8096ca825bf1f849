import { lydText, MAX_MICRO_LYD, microToLyd, parseLyd, readLyd } from './lyd';

describe('parseLyd', () => {
  it.each([
    ['10', 10_000_000],
    ['12.5', 12_500_000],
    ['0.000001', 1],
    ['-3.25', -3_250_000],
    ['0.1', 100_000],
    ['  7 ', 7_000_000],
    ['-0', 0],
    ['9007199254.740991', MAX_MICRO_LYD],
    ['-9007199254.740991', -MAX_MICRO_LYD],
  ])('%s -> %i micro-LYD', (text, micro) => {
    expect(parseLyd(text)).toBe(micro);
  });

  it.each([
    '',
    'abc',
    '1.0000001',
    '1e3',
    '1,5',
    '.5',
    '1.',
    '+1',
    '0x10',
    'Infinity',
    '99999999999999',
    '9007199254.740992',
    '-9007199254.740992',
  ])('refuses %p', (text) => {
    expect(parseLyd(text)).toBeUndefined();
  });
});

describe('readLyd', () => {
  it('says why an amount is refused', () => {
    expect(readLyd('12,5')).toEqual({ ok: false, problem: expect.stringContaining('is not an amount in LYD') });
    expect(readLyd('0.0000001')).toEqual({ ok: false, problem: expect.stringContaining('more than 6 decimals') });
    expect(readLyd('9007199254.740992')).toEqual({ ok: false, problem: expect.stringContaining('beyond 9007199254.740991 LYD') });
  });

  it('keeps every micro-LYD of a large amount, as a float would not', () => {
    expect(readLyd('9007199254.740990')).toEqual({ ok: true, micro: MAX_MICRO_LYD - 1 });
    expect(readLyd('4503599627.370497')).toEqual({ ok: true, micro: 4_503_599_627_370_497 });
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

describe('lydText', () => {
  it.each([
    [12_500_000, '12.500000'],
    [1, '0.000001'],
    [-1, '-0.000001'],
    [0, '0.000000'],
    [-3_250_000, '-3.250000'],
    [MAX_MICRO_LYD, '9007199254.740991'],
    [-MAX_MICRO_LYD, '-9007199254.740991'],
  ])('%i -> %s', (micro, text) => {
    expect(lydText(micro)).toBe(text);
  });

  it('reads back to the same micro-LYD, to the last digit of the largest amount', () => {
    for (const micro of [1, -999_999, 123_456_789, MAX_MICRO_LYD - 1]) expect(readLyd(lydText(micro))).toEqual({ ok: true, micro });
  });
});
