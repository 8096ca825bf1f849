import { Metadata, ServerInterceptingCall, ServerInterceptor } from '@grpc/grpc-js';
import { GatewayIdentity } from '@gw/identity';

/** What a plain-text server records for every call: nobody's identity is checked there. */
const PLAIN_TEXT = Symbol('plain text: callers not checked');

/**
 * The caller of each call as the server verified it, by the call's request metadata: grpc-js hands
 * the handler the very Metadata object its interceptors passed on, and a WeakMap entry, unlike a
 * header, is nothing a client can send. A call with no entry has no verified caller.
 */
const callers = new WeakMap<Metadata, string | typeof PLAIN_TEXT>();

/** Records the identity the access check verified for the call whose request metadata this is (accessInterceptor). */
export function recordVerifiedCaller(metadata: Metadata, identity: string): void {
  callers.set(metadata, identity);
}

/**
 * A plain-text server's interceptor (GRPC_INSECURE, loopback only): every call is recorded as
 * unchecked, as the access check does not run there either.
 */
export const plainTextCallers: ServerInterceptor = (_method, call) =>
  new ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, pass) => {
          callers.set(metadata, PLAIN_TEXT);
          pass(metadata);
        },
      }),
  });

/**
 * True when the call whose request metadata this is (a handler context's `metadata`, unary or
 * carried on a call stream) comes from `identity`, as its client certificate proved at the
 * access check; also on a plain-text server, where no caller is checked (as no method's callers
 * are). False when the caller is another identity or is not known: a rule that depends on who
 * calls fails closed.
 */
export function isCaller(metadata: Metadata, identity: GatewayIdentity): boolean {
  const caller = callers.get(metadata);
  return caller === PLAIN_TEXT || caller === identity;
}

/** Who made the call whose request metadata this is, as the access check verified it: an identity, `unchecked` on a plain-text server, or undefined. */
export function verifiedCallerOf(metadata: Metadata): string | undefined {
  const caller = callers.get(metadata);
  return caller === PLAIN_TEXT ? 'unchecked' : caller;
}
