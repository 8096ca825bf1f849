/**
 * Why a service's domain refuses what it is asked, in its own terms. The domain knows nothing of
 * gRPC: service-kit's error mapping (rpcStatusOf, grpcCodeOf) turns each kind into its status,
 * once, for every handler and call stream, and the retry policy reads the same mapping.
 */
export type DomainErrorKind =
  /** The request itself is malformed or past a bound. */
  | 'invalid-argument'
  /** What it names does not exist. */
  | 'not-found'
  /** It would create what exists already (differently). */
  | 'already-exists'
  /** The state it needs does not hold (suspended, not enough balance, wrong order). */
  | 'failed-precondition'
  /** A value is out of the range it may take now. */
  | 'out-of-range'
  /** A store or feed it needs is down for now; a retry may pass. */
  | 'unavailable'
  /** Its caller went away before it was done; nothing was kept. */
  | 'cancelled'
  /** It lost a race with the request's own end. */
  | 'aborted'
  /** This deployment does not serve it. */
  | 'unimplemented'
  /** The caller may not ask it. */
  | 'permission-denied';

/** A refusal of the domain, with a message safe to show the caller. */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
