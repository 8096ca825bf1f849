import { afterFailedTry } from './mail-retry';

const BACKOFF = { firstMs: 1000, maxMs: 8000 };

describe('afterFailedTry', () => {
  it('waits longer after each failure, doubling up to the longest wait, jittered in the upper half', () => {
    const top = (attempts: number) => afterFailedTry(attempts, BACKOFF, 10, () => 1);
    const bottom = (attempts: number) => afterFailedTry(attempts, BACKOFF, 10, () => 0);
    expect([1, 2, 3, 4, 5, 9].map(top)).toEqual([1000, 2000, 4000, 8000, 8000, 8000].map((retryInMs) => ({ retryInMs })));
    expect([1, 4].map(bottom)).toEqual([{ retryInMs: 500 }, { retryInMs: 4000 }]);
  });

  it('gives up once the last try was made, not before', () => {
    expect(afterFailedTry(9, BACKOFF, 10)).toHaveProperty('retryInMs');
    expect(afterFailedTry(10, BACKOFF, 10)).toEqual({ giveUp: true });
    expect(afterFailedTry(1, BACKOFF, 1)).toEqual({ giveUp: true });
  });
});
