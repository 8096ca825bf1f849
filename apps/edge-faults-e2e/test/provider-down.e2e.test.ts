import OpenAI from 'openai';
import { freePort } from '@gw/testing';
import { errorOf, GatewayUnderTest, startGateway } from '@gw/test-stack';

describe('an unreachable provider: 503 UPSTREAM_DOWN (docs/api.md#every-error-code)', () => {
  let gw: GatewayUnderTest;

  beforeAll(async () => {
    gw = await startGateway({ PROVIDER_BASE_URL: `http://127.0.0.1:${await freePort()}/v1` });
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  it('answers UPSTREAM_DOWN, whole or streamed, costs nothing, and opens the breaker after 5 failures', async () => {
    const { accountId, key } = await gw.account('5');
    for (let i = 0; i < 6; i++) {
      const res = await gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hi' }], stream: i % 2 === 1 });
      expect(await errorOf(res)).toMatchObject({ status: 503, code: 'UPSTREAM_DOWN', type: 'server_error', param: null });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    expect(gw.stack.logs.some((line) => line.includes('provider circuit breaker') && line.includes('"state":"open"'))).toBe(true);
    // Nothing to wait for: a while passes in which no charge may arrive.
    await new Promise((r) => setTimeout(r, 300));
    expect(await gw.balanceMicro(accountId)).toBe(5_000_000);
    expect(await gw.usage(accountId)).toEqual({ todayTokens: 0, totalTokens: 0 });
  });

  it('reaches the openai client as InternalServerError with the code', async () => {
    const { key } = await gw.account('1');
    const client = new OpenAI({ baseURL: gw.stack.baseUrl, apiKey: key, maxRetries: 0 });
    const err = await client.chat.completions
      .create({ model: 'vendor-v4-pro', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err).toMatchObject({ status: 503, code: 'UPSTREAM_DOWN' });
  });
});
