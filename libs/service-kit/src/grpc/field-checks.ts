import { MAX_ID_LENGTH } from '@gw/bounds';
import { DomainError } from '@gw/errors';

/**
 * The checks of a request's fields that every service makes the same way: each refuses a value
 * past its bound (libs/bounds, libs/money) with INVALID_ARGUMENT, naming the field, before
 * anything changes. Messages name the proto field (`prompt_tokens`).
 */

const CONTROL_CHARACTER = /\p{Cc}/u;

/** A required id (or model id, with its own `max`) of 1 to `max` characters; returns it. */
export function requireId(field: string, value: string, max = MAX_ID_LENGTH): string {
  if (value.length === 0) throw new DomainError('invalid-argument', `${field} is required`);
  return optionalId(field, value, max);
}

/**
 * An id that may be empty (meaning none), of at most `max` characters and no control character
 * (no id holds one, and Postgres cannot store a NUL); returns it.
 */
export function optionalId(field: string, value: string, max = MAX_ID_LENGTH): string {
  if (value.length > max) throw new DomainError('invalid-argument', `${field} longer than ${max} characters`);
  if (CONTROL_CHARACTER.test(value)) throw new DomainError('invalid-argument', `${field} cannot hold control characters`);
  return value;
}

/** A whole number from `min` to `max`; returns it. */
export function requireCount(field: string, value: number, max: number, min = 0): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new DomainError('invalid-argument', `${field} must be a whole number from ${min} to ${max}`);
  return value;
}
