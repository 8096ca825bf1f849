import { status } from '@grpc/grpc-js';
import { grpcCodeOf } from './rpc-error';

/**
 * The one retry policy of every delivery that must land (a request's finish at quota-service,
 * a bill at billing-service, a lapsed lease): which failures are final, and how long to wait
 * before the next try.
 *
 * Final are only the answers in which the receiver judged the item itself: it is malformed,
 * unknown, in the wrong state, another's, or out of range. No retry changes those. Everything
 * else passes with time or with an operator's fix (UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL,
 * CANCELLED, UNAUTHENTICATED and PERMISSION_DENIED after a certificate mistake, UNIMPLEMENTED
 * during a rollout...), so it is retried: a bill is never dropped for a fault of the path.
 */
const FINAL = new Set<number>([
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.FAILED_PRECONDITION,
  status.ALREADY_EXISTS,
  status.OUT_OF_RANGE,
]);

/** Whether retrying `err` cannot help (see FINAL above); an error without a gRPC code is retried. */
export function isFinalFailure(err: unknown): boolean {
  const code = grpcCodeOf(err);
  return code !== undefined && FINAL.has(code);
}

/** Backoff bounds, ms. */
export interface Backoff {
  /** The wait after the first failure. */
  firstMs: number;
  /** The longest wait. */
  maxMs: number;
}

/**
 * The wait before try `failures + 1` after `failures` failures in a row (at least 1): the
 * exponential bound min(max, first × 2^(failures−1)), with "equal jitter" (a random point in the
 * upper half of it), so that the callers of a store that comes back do not all retry at once
 * while each still waits at least half the bound.
 */
export function backoffMs(failures: number, backoff: Backoff, random: () => number = Math.random): number {
  const bound = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.max(0, failures - 1));
  return Math.round(bound / 2 + random() * (bound / 2));
}
