/**
 * The store could not answer in time (unreachable, timed out, or replied with something
 * unexpected). The cause is kept for the log only; it is never shown to a caller.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('limit store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}
