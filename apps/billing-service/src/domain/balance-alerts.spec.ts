import { afterBalanceMove, afterUncovered, isLowBalance, leftUncovered, NO_ALERTS, withThreshold } from './balance-alerts';

const armed = { thresholdMicro: 5_000_000, below: false, exhausted: false };

describe('low-balance alert', () => {
  it('is low at or below the threshold, never without one', () => {
    expect(isLowBalance(5_000_000, 5_000_000)).toBe(true);
    expect(isLowBalance(4_999_999, 5_000_000)).toBe(true);
    expect(isLowBalance(5_000_001, 5_000_000)).toBe(false);
    expect(isLowBalance(0, undefined)).toBe(false);
  });

  it('fires when the balance falls to the threshold, and not again while it stays at or below', () => {
    const fell = afterBalanceMove(armed, 5_000_000, false);
    expect(fell).toEqual({ state: { ...armed, below: true }, fellBelow: true });
    expect(afterBalanceMove(fell.state, 1_000_000, false).fellBelow).toBe(false);
    expect(afterBalanceMove(fell.state, 4_000_000, true).fellBelow).toBe(false);
  });

  it('fires again only after the balance went back above the threshold', () => {
    const below = { ...armed, below: true };
    const above = afterBalanceMove(below, 5_000_001, true);
    expect(above).toEqual({ state: armed, fellBelow: false });
    expect(afterBalanceMove(above.state, 4_000_000, false).fellBelow).toBe(true);
  });

  it('never fires without a threshold', () => {
    expect(afterBalanceMove(NO_ALERTS, 0, false)).toEqual({ state: NO_ALERTS, fellBelow: false });
  });

  it('takes a threshold set above the balance as told, and one set below it as armed, without firing', () => {
    expect(withThreshold(NO_ALERTS, 5_000_000, 3_000_000)).toEqual({ thresholdMicro: 5_000_000, below: true, exhausted: false });
    expect(withThreshold({ ...armed, below: true }, 1_000_000, 3_000_000)).toEqual({ ...armed, thresholdMicro: 1_000_000 });
    expect(withThreshold(armed, undefined, 0)).toEqual(NO_ALERTS);
  });
});

describe('exhausted-balance alert', () => {
  it('judges a request uncovered when the line grew by less than it lacked', () => {
    expect(leftUncovered({ grantedTotalMicro: 10, uncoveredMicro: 5 }, 14)).toBe(true);
    expect(leftUncovered({ grantedTotalMicro: 10, uncoveredMicro: 5 }, 15)).toBe(false);
    expect(leftUncovered({ grantedTotalMicro: 10, uncoveredMicro: 5 }, 10)).toBe(true);
  });

  it('does not judge an ask that does not say what it lacked (an older quota-service) or lacked nothing', () => {
    expect(leftUncovered({}, 0)).toBe(false);
    expect(leftUncovered({ grantedTotalMicro: 10 }, 10)).toBe(false);
    expect(leftUncovered({ grantedTotalMicro: 10, uncoveredMicro: 0 }, 10)).toBe(false);
  });

  it('fires once, and again only after a top-up', () => {
    const first = afterUncovered(NO_ALERTS);
    expect(first.exhausted).toBe(true);
    expect(afterUncovered(first.state).exhausted).toBe(false);
    expect(afterBalanceMove(first.state, 1, false).state.exhausted).toBe(true);
    const toppedUp = afterBalanceMove(first.state, 1_000_000, true).state;
    expect(afterUncovered(toppedUp).exhausted).toBe(true);
  });
});
