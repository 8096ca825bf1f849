import { maskAuthorization, SimStats } from './sim-stats';

describe('SimStats', () => {
  it('counts requests in flight, the highest seen and the total', () => {
    const stats = new SimStats();
    const endA = stats.begin(undefined);
    const endB = stats.begin(undefined);
    endA();
    endA();
    expect(stats.snapshot()).toEqual({ inFlight: 1, maxInFlight: 2, total: 2, lastAuthorization: null });
    stats.reset();
    expect(stats.snapshot()).toEqual({ inFlight: 1, maxInFlight: 1, total: 0, lastAuthorization: null });
    endB();
    expect(stats.snapshot().inFlight).toBe(0);
  });

  it('keeps only the scheme and the first 8 characters of the last key', () => {
    const stats = new SimStats();
    stats.begin('Bearer sk-verysecretkey123');
    expect(stats.snapshot().lastAuthorization).toBe('Bearer sk-verys');
  });
});

describe('maskAuthorization', () => {
  it('never shows more than 8 characters of a credential', () => {
    expect(maskAuthorization('Bearer abc')).toBe('Bearer abc');
    expect(maskAuthorization('sk-verysecretkey123')).toBe('sk-verys');
    expect(maskAuthorization('Basic  dXNlcjpwYXNzd29yZA==')).toBe('Basic dXNlcjpw');
  });
});
