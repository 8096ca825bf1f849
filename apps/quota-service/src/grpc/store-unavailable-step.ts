import { status } from '@grpc/grpc-js';
import { Logger, RpcError, ServerMiddleware } from '@gw/service-kit';
import { storeUnavailable } from '../quota-metrics';
import { StoreUnavailableError } from '../store/store-unavailable-error';

/**
 * quota-service's step of the server chain: a store that cannot answer becomes UNAVAILABLE
 * ("could not decide"), counted by method, with its cause only in the log.
 */
export function storeUnavailableStep(logger: Logger): ServerMiddleware {
  return (request, context, next) =>
    next(request, context).catch((err: unknown) => {
      if (!(err instanceof StoreUnavailableError)) throw err;
      storeUnavailable.inc({ operation: context.method });
      logger.warn('store unavailable', { method: context.method, err: err.cause });
      throw new RpcError(status.UNAVAILABLE, 'quota store unavailable');
    });
}
