import { status } from '@grpc/grpc-js';
import { ItemOutcome } from './each-on-its-own';

/** One item's end in a batch call: its result, or its own error (with the gRPC `code`). */
export type ItemResult<R> = { ok: true; value: R } | { ok: false; err: unknown };

function outcomeError(outcome: ItemOutcome<unknown> | undefined): Error {
  const err = new Error(outcome?.errorMessage || 'no outcome for this item') as Error & { code: number };
  err.code = outcome && outcome.errorCode !== 0 ? outcome.errorCode : status.INTERNAL;
  return err;
}

/**
 * The caller's side of a batch call (see eachOnItsOwn): each item's result or error. When the
 * whole call fails every item has its error; a server without the batch method (UNIMPLEMENTED,
 * during a rolling update) gets one single call per item instead.
 */
export async function callBatch<T, R>(
  items: T[],
  many: (items: T[]) => Promise<ItemOutcome<R>[]>,
  one: (item: T) => Promise<R>,
): Promise<ItemResult<R>[]> {
  const single = (item: T) =>
    one(item).then(
      (value): ItemResult<R> => ({ ok: true, value }),
      (err: unknown): ItemResult<R> => ({ ok: false, err }),
    );
  let outcomes: ItemOutcome<R>[];
  try {
    outcomes = await many(items);
  } catch (err) {
    if ((err as { code?: number }).code === status.UNIMPLEMENTED) return Promise.all(items.map(single));
    return items.map(() => ({ ok: false, err }));
  }
  return items.map((_, i) => {
    const outcome = outcomes[i];
    return outcome?.errorCode === 0 && outcome.result !== undefined
      ? { ok: true, value: outcome.result }
      : { ok: false, err: outcomeError(outcome) };
  });
}
