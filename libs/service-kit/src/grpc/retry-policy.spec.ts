import { status } from '@grpc/grpc-js';
import { backoffMs, isFinalFailure } from './retry-policy';

const failure = (code: number) => Object.assign(new Error('failed'), { code });

describe('isFinalFailure', () => {
  it.each([status.INVALID_ARGUMENT, status.NOT_FOUND, status.FAILED_PRECONDITION, status.ALREADY_EXISTS, status.OUT_OF_RANGE])(
    'takes the receiver judging the item itself (code %i) as final',
    (code) => expect(isFinalFailure(failure(code))).toBe(true),
  );

  it.each([
    status.CANCELLED,
    status.UNKNOWN,
    status.DEADLINE_EXCEEDED,
    status.PERMISSION_DENIED,
    status.RESOURCE_EXHAUSTED,
    status.ABORTED,
    status.UNIMPLEMENTED,
    status.INTERNAL,
    status.UNAVAILABLE,
    status.UNAUTHENTICATED,
  ])('retries a fault of the path or the receiver (code %i)', (code) => expect(isFinalFailure(failure(code))).toBe(false));

  it('retries an error without a gRPC code', () => {
    expect(isFinalFailure(new Error('socket hang up'))).toBe(false);
    expect(isFinalFailure(undefined)).toBe(false);
  });
});

describe('backoffMs', () => {
  const backoff = { firstMs: 100, maxMs: 5000 };

  it('doubles its bound with each failure up to the maximum', () => {
    const top = (failures: number) => backoffMs(failures, backoff, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(top)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  });

  it('waits a random point in the upper half of the bound', () => {
    expect(backoffMs(3, backoff, () => 0)).toBe(200);
    expect(backoffMs(3, backoff, () => 0.5)).toBe(300);
    const waits = new Set(Array.from({ length: 50 }, () => backoffMs(7, backoff)));
    expect(waits.size).toBeGreaterThan(1);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(2500);
      expect(wait).toBeLessThanOrEqual(5000);
    }
  });
});
