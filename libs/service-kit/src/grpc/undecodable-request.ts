import { Metadata, ServerInterceptingCall, ServerInterceptor, ServiceDefinition, status } from '@grpc/grpc-js';
import { Logger } from '../process/logger';
import { counter } from '../process/metrics';

const undecodableCalls = counter(
  'grpc_server_undecodable_requests_total',
  'gRPC requests refused with INVALID_ARGUMENT because they could not be decoded, by method.',
  ['method'],
);

/** What a request decoder of tolerantDecoding gives for bytes the contract's decoder refuses. */
const UNDECODABLE = Symbol('undecodable request');

/** The message an undecodable request is refused with; the decoder's own text is not passed on. */
export const UNDECODABLE_DETAILS =
  "the request could not be decoded: a whole number beyond ±(2^53 − 1), or bytes that are not the method's message";

/**
 * A service definition whose request decoders never throw: bytes one refuses become a marker that
 * refuseUndecodable answers with INVALID_ARGUMENT. grpc-js answers a decoder's exception with
 * INTERNAL; and the generated decoders (ts-proto, int64 as number) throw for an int64 past
 * Number.MAX_SAFE_INTEGER, a number the caller sent out of range, not a fault of the server.
 */
export function tolerantDecoding(definition: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(
    Object.entries(definition).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer): unknown => {
          try {
            return method.requestDeserialize(bytes);
          } catch {
            return UNDECODABLE;
          }
        },
      },
    ]),
  );
}

/**
 * The server interceptor that answers a request tolerantDecoding could not decode with
 * INVALID_ARGUMENT before any handler sees it (on a stream, the whole stream ends so), logged at
 * warn and counted by method.
 */
export function refuseUndecodable(logger: Logger): ServerInterceptor {
  return (method, call) =>
    new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMessage: (message, pass) => {
            if (message !== UNDECODABLE) return pass(message);
            undecodableCalls.inc({ method: method.path });
            logger.warn('request not decoded', { method: method.path, peer: call.getPeer() });
            call.sendStatus({ code: status.INVALID_ARGUMENT, details: UNDECODABLE_DETAILS, metadata: new Metadata() });
          },
        }),
    });
}
