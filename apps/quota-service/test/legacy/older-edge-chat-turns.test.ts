import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { awayFromMinuteEnd } from '../admission-stack';
import { chatTurnsStack } from '../chat-turns-stack';

const { PAYMENT_FREE } = quotaV1.Payment;

/**
 * The chat product shares the API's count and places (docs/api.md#rate-limits): a chat turn is
 * counted when it takes its place, and a place is given back only by the caller that took it.
 * Real quota-service and billing-service over mutual TLS, the edge and the chat product each with
 * its own certificate.
 */
describe("quota-service over mutual TLS: the chat product's places beside the older release's edge", () => {
  const stack = chatTurnsStack();
  let seq = 0;
  const newAccount = (name: string) => `acct_${name}_${process.pid}_${++seq}`;
  const turn = (accountId: string, requestId: string) => stack.chat.acquirePlace({ accountId, requestId, lease: undefined });
  const release = (accountId: string, requestId: string, tokens = 1) =>
    stack.chat.releasePlace({ accountId, requestId, promptTokens: tokens, completionTokens: 0 });

  beforeEach(() => awayFromMinuteEnd(10_000));

  it("keeps the chat product's place when the edge finishes a request of the same id, admitted or not (the finish itself still lands)", async () => {
    const accountId = newAccount('shared');
    const [admittedId, olderId] = [`${accountId}_turn_1`, `${accountId}_turn_2`];
    for (const requestId of [admittedId, olderId]) expect(await turn(accountId, requestId)).toMatchObject({ granted: true });
    const finish = {
      accountId,
      model: 'vendor-v4-flash',
      payment: PAYMENT_FREE,
      promptTokens: 1,
      completionTokens: 1,
      usageEstimated: false,
    };
    expect(await stack.edge.finishRequest({ ...finish, requestId: admittedId, admitted: true })).toEqual({
      released: false,
      repeated: false,
    });
    // An older edge's finish (no `admitted`).
    expect(await stack.edge.finishRequest({ ...finish, requestId: olderId })).toEqual({ released: false, repeated: false });
    for (const requestId of [admittedId, olderId]) expect(await release(accountId, requestId)).toEqual({ released: true });
  });

  it("refuses an older edge's AcquirePlace under a chat turn's id (PERMISSION_DENIED) and leaves no lease", async () => {
    const accountId = newAccount('edge_collides');
    const requestId = `${accountId}_turn`;
    expect(await turn(accountId, requestId)).toMatchObject({ granted: true });
    const lease = { accountId, requestId, model: 'vendor-v4-flash', payment: PAYMENT_FREE, promptTokens: 1, completionTokens: 1 };
    await expect(stack.edge.acquirePlace({ accountId, requestId, lease })).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await stack.edge.renewLeases({ leases: [lease] })).toEqual({ unknownRequestIds: [requestId] });
    expect(await release(accountId, requestId)).toEqual({ released: true });
  });
});
