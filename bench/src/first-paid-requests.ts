import { send, Target } from './target';

/**
 * Each key's first paid request, 64 at a time. An account's first paid request finds no credit
 * line at quota-service and draws one from billing-service (a Postgres transaction); the line then
 * serves its requests until it has been idle 10 minutes. At the bench's rates each account asks
 * every few seconds, so lines stay: this makes the state a steady flow would have.
 */
export async function firstPaidRequests(gateway: Target, keys: readonly string[], body: string): Promise<void> {
  const left = [...keys];
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      for (let key = left.pop(); key !== undefined; key = left.pop()) {
        await send({ ...gateway, authorization: () => `Bearer ${key}` }, body);
      }
    }),
  );
}
