import { inspect } from 'node:util';

export interface EventuallyOptions {
  /** How long to keep reading before giving up (default 10 s). */
  timeoutMs?: number;
  /** The pause between two reads (default 50 ms). */
  intervalMs?: number;
  /** What is awaited, for the error a timeout throws. */
  what?: string;
}

/**
 * Reads `read` until `ok` accepts what it returns (by default: until it is truthy) and returns that
 * value; throws, naming the last value read, when `timeoutMs` passes first. A test waits with it
 * for a state it can observe instead of sleeping for a time it hopes is enough. An error thrown by
 * `read` fails the wait at once.
 */
export async function eventually<T>(read: () => T | Promise<T>, ok?: (value: T) => boolean, options?: EventuallyOptions): Promise<T>;
export async function eventually<T>(read: () => T | Promise<T>, options: EventuallyOptions): Promise<T>;
export async function eventually<T>(
  read: () => T | Promise<T>,
  okOrOptions?: ((value: T) => boolean) | EventuallyOptions,
  maybeOptions: EventuallyOptions = {},
): Promise<T> {
  const ok = typeof okOrOptions === 'function' ? okOrOptions : (value: T) => Boolean(value);
  const { timeoutMs = 10_000, intervalMs = 50, what } = typeof okOrOptions === 'object' ? okOrOptions : maybeOptions;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() >= deadline) {
      const last = inspect(value, { depth: 4, breakLength: Infinity, maxStringLength: 500 });
      throw new Error(`${what ?? 'condition'} not met within ${timeoutMs} ms; last read: ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
