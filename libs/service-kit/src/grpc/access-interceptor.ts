import { Metadata, ServerInterceptingCall, ServerInterceptingCallInterface, ServerInterceptor, status } from '@grpc/grpc-js';
import { identityOf, NamedCertificate } from '@gw/identity';
import { judgeCall, MethodCallers } from './caller-access';
import { Logger } from '../process/logger';
import { counter } from '../process/metrics';
import { recordVerifiedCaller } from './verified-caller';

const refusedCalls = counter(
  'grpc_server_refused_calls_total',
  'gRPC calls refused by the access check, by method, caller identity and code.',
  ['method', 'caller', 'code'],
);

/** What a connection's verified client certificate names, by HTTP/2 session; null: no valid certificate. */
const sessionPeers = new WeakMap<object, NamedCertificate | null>();

/**
 * The caller's verified certificate. A connection's peer is fixed at its handshake (HTTP/2 turns
 * TLS renegotiation off), and reading it (getPeerCertificate) was a seventh of a service's CPU
 * when done on every call, so it is read once per HTTP/2 session. grpc-js does not expose the session; where its call object no longer
 * carries one, every call reads the certificate again.
 */
function peerOf(call: ServerInterceptingCallInterface): NamedCertificate | undefined {
  const session = (call as unknown as { stream?: { session?: object } }).stream?.session;
  let peer = session && sessionPeers.get(session);
  if (peer === undefined) {
    const cert = call.getAuthContext().sslPeerCertificate;
    peer = cert ? { subjectaltname: cert.subjectaltname, subject: { CN: cert.subject?.CN } } : null;
    if (session) sessionPeers.set(session, peer);
  }
  return peer ?? undefined;
}

/**
 * The one server interceptor that enforces who may call what: each call is judged (judgeCall)
 * when its headers arrive, before its message is read; a refusal is answered, logged with the
 * caller and method, and counted. A call let through has its verified caller recorded, for the
 * rules that depend on who calls (isCaller).
 */
export function accessInterceptor(callers: MethodCallers, logger: Logger): ServerInterceptor {
  return (method, call) =>
    new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            const peer = peerOf(call);
            const refusal = judgeCall(callers, method.path, peer);
            if (!refusal) {
              const identity = peer && identityOf(peer);
              if (identity) recordVerifiedCaller(metadata, identity);
              return pass(metadata);
            }
            const code = status[refusal.code];
            refusedCalls.inc({ method: method.path, caller: refusal.caller, code });
            logger.warn('call refused', { method: method.path, caller: refusal.caller, code, peer: call.getPeer() });
            call.sendStatus({ code: refusal.code, details: refusal.details, metadata: new Metadata() });
          },
        }),
    });
}
