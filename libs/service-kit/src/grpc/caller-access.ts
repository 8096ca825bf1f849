import { status } from '@grpc/grpc-js';
import { identityOf, NamedCertificate } from '@gw/identity';

/** Which identities each method answers, by method path (contracts' METHOD_CALLERS). */
export type MethodCallers = Readonly<Record<string, readonly string[]>>;

/** A call the access check refuses: its status, the caller as far as known, and why. */
export interface Refusal {
  code: status.UNAUTHENTICATED | status.PERMISSION_DENIED;
  caller: string;
  details: string;
}

const HEALTH_SERVICE = '/grpc.health.v1.Health/';

/**
 * Judges one call by its method path and the caller's verified certificate (undefined when the
 * caller sent none, or one our CA did not sign or that has expired): undefined lets it through.
 * The health service answers everyone; every other method only the identities listed for it.
 */
export function judgeCall(callers: MethodCallers, path: string, cert: NamedCertificate | undefined): Refusal | undefined {
  if (path.startsWith(HEALTH_SERVICE)) return undefined;
  if (!cert)
    return { code: status.UNAUTHENTICATED, caller: 'unknown', details: 'a valid client certificate signed by the gateway CA is required' };
  const caller = identityOf(cert) ?? 'unnamed';
  if (callers[path]?.includes(caller)) return undefined;
  return { code: status.PERMISSION_DENIED, caller, details: `${caller} may not call ${path}` };
}
