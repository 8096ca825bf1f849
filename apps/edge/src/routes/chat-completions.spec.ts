import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import express from 'express';
import { authV1, quotaV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
import { admitAnswer, countOf, FakeQuota, unavailable } from '../../test/fake-quota';
import { ChatAdmission } from '../admission/chat-admission';
import { LeasedRequest } from '../domain/lease-keeper';
import { MinuteRefusals } from '../domain/minute-refusals';
import { FinishedRequest } from '../domain/finish-sender';
import { BodyBudget } from '../http/guards/body-budget';
import { callerRequestId } from '../http/logging/request-id';
import { requestLog } from '../http/logging/request-log';
import { errorHandler } from '../http/replies/error-handler';
import { ProviderResponse } from '../upstream/provider-client';
import { chatCompletionsRoute } from './chat-completions';

const { AdmitOutcome, Payment, EndReason } = quotaV1;

const MODEL: authV1.Model = { id: 'vendor-v4-flash', vision: false, created: 0, public: true };
const auth = {
  authenticate: async (): Promise<authV1.AuthenticateResponse> => ({ found: true, accountId: 'acct-1', keyId: 'key-1', models: [MODEL] }),
  listModels: async (): Promise<authV1.ListModelsResponse> => ({ models: [MODEL] }),
};

const STREAM = [
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"}}]}\n\n',
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}\n\n',
  'data: [DONE]\n\n',
];

async function* pieces(parts: string[]): AsyncIterable<Buffer> {
  for (const part of parts) yield Buffer.from(part);
}

/** The provider, in process: a streamed reply with its usage. */
class FakeProvider {
  readonly sent: { body: Record<string, unknown>; callerRequestId: string }[] = [];

  async send(body: Record<string, unknown>, callerRequestId: string): Promise<ProviderResponse> {
    this.sent.push({ body, callerRequestId });
    return { status: 200, contentType: 'text/event-stream', providerRequestId: 'prov-1', body: pieces(STREAM) };
  }
}

/** The route between the edge's own first middlewares and its error handler, with fakes around it. */
async function edgeWith(quota: FakeQuota) {
  const logger = createLogger('edge-test', 'error', () => undefined);
  const finishes: Promise<FinishedRequest>[] = [];
  const kept: LeasedRequest[] = [];
  const provider = new FakeProvider();
  const finishSender = { finish: (done: FinishedRequest | Promise<FinishedRequest>) => void finishes.push(Promise.resolve(done)) };
  const app = express();
  app.use(requestLog(logger));
  app.use(callerRequestId);
  app.post(
    '/v1/chat/completions',
    chatCompletionsRoute({
      auth,
      admission: new ChatAdmission({ quota, minuteRefusals: new MinuteRefusals(10), finishSender }),
      provider,
      finishSender,
      leases: { keep: (request) => void kept.push(request), replyBegan: () => undefined },
      bodyLimitBytes: 2_000_000,
      bodyBudget: new BodyBudget(10_000_000),
      providerSilenceMs: 60_000,
    }),
  );
  app.use(errorHandler(logger));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  const ask = (body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', 'x-request-id': 'caller-1' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const close = () => new Promise((resolve) => server.close(resolve));
  return { ask, close, finishes, kept, provider };
}

const streamed = {
  model: 'vendor-v4-flash',
  messages: [{ role: 'user', content: 'Hi' }],
  stream: true,
  stream_options: { include_usage: true },
};

/** The error object of an error reply's body. */
const errorOf = async (res: Response): Promise<unknown> => ((await res.json()) as { error: unknown }).error;

const rateHeadersOf = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
  retryAfter: res.headers.get('retry-after'),
});

describe('POST /v1/chat/completions, with quota-service and the provider in process', () => {
  let edge: Awaited<ReturnType<typeof edgeWith>> | undefined;
  afterEach(async () => {
    await edge?.close();
    edge = undefined;
  });

  it('relays an admitted paid stream to the caller and finishes it once, with its usage and why it ended; Admit names the caller key', async () => {
    const hold = { amountMicroLyd: 6000, inputMicroLydPerMillion: 1, outputMicroLydPerMillion: 4 };
    const quota = new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_PAID, 29, { hold }));
    edge = await edgeWith(quota);
    const res = await edge.ask(streamed);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(rateHeadersOf(res)).toEqual({ limit: '30', remaining: '29', reset: '1900000060', retryAfter: null });
    expect(await res.text()).toBe(STREAM.join(''));
    expect(edge.provider.sent).toEqual([{ body: expect.objectContaining({ model: 'vendor-v4-flash' }), callerRequestId: 'caller-1' }]);

    const [admitted] = quota.admits;
    expect(admitted).toMatchObject({ accountId: 'acct-1', keyId: 'key-1' });
    expect(edge.finishes).toHaveLength(1);
    const finished = await edge.finishes[0];
    expect(finished).toEqual({
      billingId: admitted.requestId,
      accountId: 'acct-1',
      model: 'vendor-v4-flash',
      payment: Payment.PAYMENT_PAID,
      usage: { promptTokens: 9, completionTokens: 2 },
      usageEstimated: false,
      hold,
      admitted: true,
      admittedAtMs: 1_900_000_043_001,
      endReason: EndReason.END_REASON_COMPLETE,
    });
    // Its lease, kept from its admission, now carries its final bill.
    expect(edge.kept.map((request) => request.leaseNow())).toEqual([
      expect.objectContaining({ requestId: admitted.requestId, promptTokens: 9, completionTokens: 2, hold, maxTokens: admitted.maxTokens }),
    ]);
  });

  it('refuses over the minute limit with 429 rate_limit_error, Retry-After and the rate headers; the provider is not called', async () => {
    edge = await edgeWith(new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_RATE_LIMITED, -1)));
    const res = await edge.ask(streamed);
    expect(res.status).toBe(429);
    expect(rateHeadersOf(res)).toEqual({ limit: '30', remaining: '0', reset: '1900000060', retryAfter: '17' });
    expect(await errorOf(res)).toMatchObject({ code: 'rate_limit_error', type: 'rate_limit_error', limit: 30 });
    expect(edge.provider.sent).toEqual([]);
    expect(edge.finishes).toEqual([]);
  });

  it('then refuses the same account itself for the rest of the minute, without asking quota-service', async () => {
    const quota = new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_RATE_LIMITED, -1));
    edge = await edgeWith(quota);
    await (await edge.ask(streamed)).text();
    const res = await edge.ask(streamed);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).not.toBeNull();
    expect(quota.admits).toHaveLength(1);
  });

  it('refuses with 429 concurrency_limit, the rate headers and no Retry-After when the account has no place left', async () => {
    edge = await edgeWith(new FakeQuota(() => admitAnswer(AdmitOutcome.ADMIT_OUTCOME_NO_PLACE, 26, { placeLimit: 3 })));
    const res = await edge.ask(streamed);
    expect(res.status).toBe(429);
    expect(rateHeadersOf(res)).toEqual({ limit: '30', remaining: '26', reset: '1900000060', retryAfter: null });
    expect(await errorOf(res)).toMatchObject({ code: 'concurrency_limit' });
    expect(edge.provider.sent).toEqual([]);
  });

  it('answers 500 INTERNAL_ERROR when quota-service cannot be asked, and gives back what the Admit may have taken', async () => {
    const quota = new FakeQuota(() => {
      throw unavailable();
    });
    edge = await edgeWith(quota);
    const res = await edge.ask(streamed);
    expect(res.status).toBe(500);
    expect(await errorOf(res)).toMatchObject({ code: 'INTERNAL_ERROR', type: 'server_error' });
    expect(edge.provider.sent).toEqual([]);
    expect(await Promise.all(edge.finishes)).toEqual([
      expect.objectContaining({ billingId: quota.admits[0].requestId, payment: Payment.PAYMENT_PAID, admitted: false }),
    ]);
  });

  it('counts a body the edge refuses: its 400 carries the rate headers, and over the limit the 429 comes first', async () => {
    const quota = new FakeQuota(undefined, () => countOf(28));
    edge = await edgeWith(quota);
    const invalid = await edge.ask('{"model":');
    expect(invalid.status).toBe(400);
    expect(rateHeadersOf(invalid)).toMatchObject({ remaining: '28' });
    expect(await errorOf(invalid)).toMatchObject({ code: 'INVALID_JSON' });

    quota.countWith = () => countOf(-1);
    const over = await edge.ask('{"model":');
    expect(over.status).toBe(429);
    expect(await errorOf(over)).toMatchObject({ code: 'rate_limit_error' });
    expect(quota.counts).toEqual(['acct-1', 'acct-1']);
    expect(quota.admits).toEqual([]);
  });
});
