import { status } from '@grpc/grpc-js';
import { ClientMiddleware } from '@gw/service-kit';
import { grpcClientSeconds } from '../edge-metrics';

const OK = status[status.OK];

/** The status name of a failed call: its gRPC code's name, UNKNOWN for an error without one. */
const codeOf = (err: unknown): string => status[(err as { code?: number }).code ?? status.UNKNOWN] ?? status[status.UNKNOWN];

/** The edge's step of its clients' chains: each call's duration in `edge_grpc_client_seconds`, by method name (`CountRequest`) and status code. */
export const timeCall: ClientMiddleware = (request, context, next) => {
  const done = grpcClientSeconds.startTimer({ method: context.method });
  return next(request, context).then(
    (response) => {
      done({ code: OK });
      return response;
    },
    (err: unknown) => {
      done({ code: codeOf(err) });
      throw err;
    },
  );
};
