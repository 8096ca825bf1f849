import { status } from '@grpc/grpc-js';
import { RpcError } from '@gw/service-kit';

/** Longest account or request id accepted; ids are part of Redis keys. */
export const MAX_ID_LENGTH = 200;

/** A required id of at most MAX_ID_LENGTH characters; INVALID_ARGUMENT otherwise. */
export function requireId(name: string, value: string): string {
  if (value.length === 0) throw new RpcError(status.INVALID_ARGUMENT, `${name} is required`);
  if (value.length > MAX_ID_LENGTH) throw new RpcError(status.INVALID_ARGUMENT, `${name} longer than ${MAX_ID_LENGTH} characters`);
  return value;
}

/** A whole number >= `min` (0 unless given) that is safe to add up; INVALID_ARGUMENT otherwise. */
export function requireCount(name: string, value: number, min = 0): number {
  if (!Number.isSafeInteger(value) || value < min) throw new RpcError(status.INVALID_ARGUMENT, `${name} must be a whole number >= ${min}`);
  return value;
}

/** The sum of token counts, each checked with requireCount; INVALID_ARGUMENT when the sum is unsafe. */
export function requireTokenSum(counts: Record<string, number>): number {
  const sum = Object.entries(counts).reduce((total, [name, value]) => total + requireCount(name, value), 0);
  if (!Number.isSafeInteger(sum)) throw new RpcError(status.INVALID_ARGUMENT, 'token count too large');
  return sum;
}
