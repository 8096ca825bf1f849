import { status } from '@grpc/grpc-js';
import { MAX_COMPLETION_TOKENS, MAX_ID_LENGTH, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import { MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION } from '@gw/money';
import { billingBoundsStack } from '../billing-bounds-stack';

const id = (length: number, fill = 'i') => fill.repeat(length);

/**
 * Every count, amount and id billing.v1 takes has a bound (libs/bounds, libs/money): just past it
 * the call is refused with INVALID_ARGUMENT and nothing in Postgres changes; at it, it is taken.
 */
describe("billing.v1.Billing over gRPC: bounds of the older release's methods", () => {
  const bounds = billingBoundsStack();
  const { state, refused, funded } = bounds;
  let seq = 0;

  const authorizeRequest = (accountId: string, overrides: Partial<billingV1.AuthorizeRequest> = {}): billingV1.AuthorizeRequest => ({
    requestId: `req_bounds_${++seq}`,
    accountId,
    model: 'vendor-v4-flash',
    promptTokens: 1000,
    maxTokens: 1000,
    ...overrides,
  });

  it('Authorize: prompt_tokens up to the context window, max_tokens up to 32,768, ids and model by length', async () => {
    const accountId = await funded();
    await refused(() => bounds.client.authorize(authorizeRequest(accountId, { promptTokens: MAX_PROMPT_TOKENS + 1 })));
    await refused(() => bounds.client.authorize(authorizeRequest(accountId, { promptTokens: 2 ** 62 })));
    await refused(() => bounds.client.authorize(authorizeRequest(accountId, { maxTokens: MAX_COMPLETION_TOKENS + 1 })));
    await refused(() => bounds.client.authorize(authorizeRequest(accountId, { requestId: id(MAX_ID_LENGTH + 1) })));
    await refused(() => bounds.client.authorize(authorizeRequest(id(MAX_ID_LENGTH + 1))));
    await refused(() => bounds.client.authorize(authorizeRequest(accountId, { model: id(MAX_MODEL_ID_LENGTH + 1, 'm') })));

    const longModel = id(MAX_MODEL_ID_LENGTH, 'm');
    await bounds.client.setPrice({ price: { model: longModel, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 1_000_000 } });
    const atBounds = authorizeRequest(accountId, {
      requestId: id(MAX_ID_LENGTH, 'r'),
      model: longModel,
      promptTokens: MAX_PROMPT_TOKENS,
      maxTokens: MAX_COMPLETION_TOKENS,
    });
    expect(await bounds.client.authorize(atBounds)).toMatchObject({
      approved: true,
      requiredMicroLyd: MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS,
    });
  });

  it('Settle, SettleMany and RecordFree: prompt_tokens up to the context window, completion_tokens up to 32,768', async () => {
    const accountId = await funded();
    const hold = authorizeRequest(accountId, { promptTokens: MAX_PROMPT_TOKENS, maxTokens: MAX_COMPLETION_TOKENS });
    await bounds.client.authorize(hold);
    const usage = {
      requestId: hold.requestId,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    await refused(() => bounds.client.settle({ ...usage, promptTokens: MAX_PROMPT_TOKENS + 1 }));
    await refused(() => bounds.client.settle({ ...usage, completionTokens: MAX_COMPLETION_TOKENS + 1 }));
    await refused(() => bounds.client.settle({ ...usage, completionTokens: 2 ** 62 }));
    const before = await state();
    expect((await bounds.client.settleMany({ requests: [{ ...usage, completionTokens: MAX_COMPLETION_TOKENS + 1 }] })).outcomes).toEqual([
      { settled: undefined, errorCode: status.INVALID_ARGUMENT, errorMessage: expect.stringContaining('completion_tokens') },
    ]);
    expect(await state()).toEqual(before);
    // 1,000,000 × 1 LYD + 32,768 × 4 LYD per million tokens: 1,131,072 micro-LYD.
    expect(await bounds.client.settle(usage)).toMatchObject({ chargedMicroLyd: 1_131_072 });

    const free = {
      requestId: `free_${++seq}`,
      accountId,
      model: 'vendor-v4-flash',
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    await refused(() => bounds.client.recordFree({ ...free, promptTokens: MAX_PROMPT_TOKENS + 1 }));
    await refused(() => bounds.client.recordFree({ ...free, completionTokens: MAX_COMPLETION_TOKENS + 1 }));
    await refused(() => bounds.client.recordFree({ ...free, model: id(MAX_MODEL_ID_LENGTH + 1, 'm') }));
    await refused(() => bounds.client.recordFree({ ...free, accountId: id(MAX_ID_LENGTH + 1) }));
    expect(await bounds.client.recordFree(free)).toEqual({ recorded: true });
  });

  it('ReleaseHold and RenewHolds: ids by length', async () => {
    const accountId = await funded();
    const hold = authorizeRequest(accountId);
    await bounds.client.authorize(hold);
    await refused(() => bounds.client.releaseHold({ requestId: id(MAX_ID_LENGTH + 1) }));
    await refused(() => bounds.client.renewHolds({ requestIds: [hold.requestId, id(MAX_ID_LENGTH + 1)] }));
    expect(await bounds.client.renewHolds({ requestIds: [hold.requestId, id(MAX_ID_LENGTH)] })).toEqual({ renewed: 1 });
    expect(await bounds.client.releaseHold({ requestId: id(MAX_ID_LENGTH) })).toEqual({ released: false });
  });

  it('the dearest request there can be is held and settled exactly', async () => {
    const price = {
      model: 'vendor-v4-bounds',
      inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
      outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
    };
    expect(await bounds.client.setPrice({ price })).toEqual({ price });
    const accountId = await funded(MAX_MICRO_LYD);
    const dearest = authorizeRequest(accountId, { model: price.model, promptTokens: MAX_PROMPT_TOKENS, maxTokens: MAX_COMPLETION_TOKENS });
    expect(await bounds.client.authorize(dearest)).toMatchObject({ approved: true, requiredMicroLyd: 1_032_768_000 });
    const usage = {
      requestId: dearest.requestId,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    expect(await bounds.client.settle(usage)).toEqual({ chargedMicroLyd: 1_032_768_000, balanceMicroLyd: MAX_MICRO_LYD - 1_032_768_000 });
  });
});
