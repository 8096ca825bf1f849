import { status } from '@grpc/grpc-js';
import { Logger } from '../process/logger';
import { RpcError } from './rpc-error';
import { rpcStatusOf } from './server-chain';

/** Most items one batch call takes. */
export const MAX_BATCH = 256;

/** One item's outcome in a batch call: its result, or the gRPC status its own call would have failed with. */
export interface ItemOutcome<R> {
  result: R | undefined;
  errorCode: number;
  errorMessage: string;
}

/**
 * A batch call's work: each item is done on its own, as its single call would do it, and one
 * item's failure is only its own. Refused as a whole (INVALID_ARGUMENT) above MAX_BATCH items.
 */
export async function eachOnItsOwn<T, R>(
  items: T[],
  work: (item: T) => Promise<R>,
  logger: Logger,
  method: string,
): Promise<ItemOutcome<R>[]> {
  if (items.length > MAX_BATCH) throw new RpcError(status.INVALID_ARGUMENT, `at most ${MAX_BATCH} items in one call`);
  return Promise.all(
    items.map((item) =>
      work(item).then(
        (result) => ({ result, errorCode: 0, errorMessage: '' }),
        (err: unknown) => {
          const failed = rpcStatusOf(err, logger, method);
          return { result: undefined, errorCode: failed.code, errorMessage: failed.details };
        },
      ),
    ),
  );
}
