import { status } from '@grpc/grpc-js';
import { unaryCall, UnaryMethod } from '@gw/service-kit';
import { grpcClientSeconds } from '../edge-metrics';

const OK = status[status.OK];

/** The status name of a failed call: its gRPC code's name, UNKNOWN for an error without one. */
const codeOf = (err: unknown): string => status[(err as { code?: number }).code ?? status.UNKNOWN] ?? status[status.UNKNOWN];

/**
 * Every gRPC call of the edge goes through here: unaryCall with its deadline, its duration
 * recorded in `edge_grpc_client_seconds` by method name (`CountRequest`) and status code.
 */
export function timedCall<Req, Res>(method: string, fn: UnaryMethod<Req, Res>, request: Req, timeoutMs: number): Promise<Res> {
  return timed(method, unaryCall(fn, request, timeoutMs));
}

/** A call's answer, its duration recorded as timedCall's are (for calls carried on a call stream). */
export async function timed<Res>(method: string, answer: Promise<Res>): Promise<Res> {
  const done = grpcClientSeconds.startTimer({ method });
  try {
    const response = await answer;
    done({ code: OK });
    return response;
  } catch (err) {
    done({ code: codeOf(err) });
    throw err;
  }
}
