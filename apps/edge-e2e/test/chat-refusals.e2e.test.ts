import OpenAI from 'openai';
import { errorOf, GatewayUnderTest, startGateway } from '@gw/test-stack';

const user = (content: unknown) => ({ role: 'user', content });
const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
const flash = (extra: Record<string, unknown> = {}) => ({ model: 'vendor-v4-flash', messages: [user('hi')], ...extra });
const PROVIDER_ID_AT_END = / prov-[0-9a-f]{24}$/;

describe('chat refusals (docs/api.md#every-error-code): the gateway own checks, the provider refusals passed on, provider faults', () => {
  let gw: GatewayUnderTest;
  let key: string;

  beforeAll(async () => {
    // Many provider 5xx on purpose here: the breaker has a file of its own.
    gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '10000', BREAKER_FAILURE_THRESHOLD: '100000' });
    ({ key } = await gw.account('5'));
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  describe('400 INVALID_JSON', () => {
    it.each([
      ['not JSON', '{"model":'],
      ['empty', ''],
      ['an array', '[{"model":"vendor-v4-flash"}]'],
      ['a string', '"hello"'],
      ['a number', '42'],
      ['null', 'null'],
    ])('%s', async (_, body) => {
      expect(await errorOf(await gw.chat(key, body))).toMatchObject({
        status: 400,
        code: 'INVALID_JSON',
        type: 'invalid_request_error',
        param: null,
      });
    });
  });

  describe('400 INVALID_PARAMETER naming the field', () => {
    it.each([
      ['model', { messages: [user('hi')] }],
      ['model', { model: 4, messages: [user('hi')] }],
      ['model', { model: null, messages: [user('hi')] }],
      ['stream', flash({ stream: 'true' })],
      ['stream', flash({ stream: 1 })],
      ['max_tokens', flash({ max_tokens: 0 })],
      ['max_tokens', flash({ max_tokens: 2.5 })],
      ['max_tokens', flash({ max_tokens: '100' })],
      ['max_completion_tokens', flash({ max_completion_tokens: -3 })],
      ['functions', flash({ functions: [{ name: 'f', parameters: {} }] })],
      ['function_call', flash({ function_call: 'auto' })],
      ['response_format', flash({ response_format: { type: 'json_schema', json_schema: { name: 's', schema: {} } } })],
    ])('%s', async (param, body) => {
      expect(await errorOf(await gw.chat(key, body))).toMatchObject({
        status: 400,
        code: 'INVALID_PARAMETER',
        type: 'invalid_request_error',
        param,
      });
    });
  });

  describe('400 model and image rules', () => {
    it.each([
      ['unknown id', { model: 'vendor-v5', messages: [user('hi')] }, 'MODEL_NOT_FOUND', 'model'],
      ['id in another case', { model: 'VENDOR-V4-FLASH', messages: [user('hi')] }, 'MODEL_NOT_FOUND', 'model'],
      [
        'image to a model that does not read images',
        { model: 'vendor-v4-pro', messages: [user([{ type: 'text', text: 'see' }, image])] },
        'MODEL_NO_VISION',
        'model',
      ],
      [
        'image in a system message',
        { model: 'vendor-v4-flash', messages: [{ role: 'system', content: [image] }, user('hi')] },
        'IMAGE_NOT_IN_USER_MESSAGE',
        'messages',
      ],
      [
        'image in an assistant message',
        { model: 'vendor-v4-flash', messages: [user('hi'), { role: 'assistant', content: [image] }, user('and?')] },
        'IMAGE_NOT_IN_USER_MESSAGE',
        'messages',
      ],
    ])('%s -> %s', async (_, body, code, param) => {
      expect(await errorOf(await gw.chat(key, body))).toMatchObject({ status: 400, code, type: 'invalid_request_error', param });
    });

    it('TOO_MANY_IMAGES carries limit 32; 32 images go through', async () => {
      const images = (n: number) => ({ model: 'vendor-v4-flash', max_tokens: 4, messages: [user(Array(n).fill(image))] });
      expect(await errorOf(await gw.chat(key, images(33)))).toMatchObject({ status: 400, code: 'TOO_MANY_IMAGES', limit: 32 });
      const ok = await gw.chat(key, images(32));
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBeGreaterThan(32 * 1024);
    });
  });

  describe('the provider refusals, passed on with its status and code and its request id at the end', () => {
    it.each([
      [400, 'n', flash({ n: 2 })],
      [400, 'stop', flash({ stop: Array.from({ length: 17 }, (_, i) => `s${i}`) })],
      [400, 'temperature', flash({ temperature: 2.5 })],
      [400, 'temperature', flash({ temperature: -0.1 })],
      [400, 'top_logprobs', flash({ logprobs: true, top_logprobs: 21 })],
      [400, 'messages', { model: 'vendor-v4-flash', messages: [] }],
      [
        400,
        'messages',
        { model: 'vendor-v4-flash', messages: [user([{ type: 'image_url', image_url: { url: 'https://example.com/unreadable.png' } }])] },
      ],
      [422, 'messages', { model: 'vendor-v4-flash' }],
      [422, 'messages', { model: 'vendor-v4-flash', messages: [{ role: 'wizard', content: 'hi' }] }],
    ])('%i on %s', async (status, param, body) => {
      const error = await errorOf(await gw.chat(key, body));
      expect(error).toMatchObject({ status, code: 'invalid_request_error', type: 'invalid_request_error', param });
      expect(error.message).toMatch(PROVIDER_ID_AT_END);
    });

    it('answers a refused stream with the JSON error, not a stream', async () => {
      const res = await gw.chat(key, flash({ stream: true, n: 3 }));
      expect(await errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request_error', param: 'n' });
    });
  });

  describe('provider faults', () => {
    it.each([
      [500, 'server_error', 'server_error'],
      [503, 'server_error', 'server_error'],
      [429, 'rate_limit_exceeded', 'rate_limit_error'],
    ])('passes a provider %i on with its own code, whole or streamed', async (status, code, type) => {
      for (const stream of [false, true]) {
        const error = await errorOf(await gw.chat(key, { model: 'vendor-v4-flash', stream, messages: [user(`[[sim:status=${status}]]`)] }));
        expect(error).toMatchObject({ status, code, type });
        expect(error.message).toMatch(PROVIDER_ID_AT_END);
      }
    });

    it.each([
      ['an empty 200', '[[sim:empty]]', 502, 200],
      ['an HTML 200', '[[sim:non_json]]', 502, 200],
      ['an HTML 502', '[[sim:non_json,status=502]]', 502, 502],
      ['an HTML 503', '[[sim:non_json,status=503]]', 503, 503],
      ['an empty 500', '[[sim:empty,status=500]]', 500, 500],
    ])('UPSTREAM_ERROR with upstreamStatus for %s, whole or streamed', async (_, marker, status, upstreamStatus) => {
      for (const stream of [false, true]) {
        const error = await errorOf(await gw.chat(key, { model: 'vendor-v4-flash', stream, messages: [user(marker)] }));
        expect(error).toMatchObject({ status, code: 'UPSTREAM_ERROR', type: 'server_error', upstreamStatus });
      }
    });
  });

  describe('through the openai client: error classes with code and param', () => {
    let client: OpenAI;
    beforeAll(() => {
      client = new OpenAI({ baseURL: gw.stack.baseUrl, apiKey: key, maxRetries: 0 });
    });
    const attempt = (body: Record<string, unknown>) =>
      client.chat.completions
        .create({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hi' }], ...body })
        .catch((err: unknown) => err);

    it.each([
      [{ max_tokens: 0 }, OpenAI.BadRequestError, 400, 'INVALID_PARAMETER', 'max_tokens'],
      [{ model: 'vendor-v9' }, OpenAI.BadRequestError, 400, 'MODEL_NOT_FOUND', 'model'],
      [{ temperature: 3 }, OpenAI.BadRequestError, 400, 'invalid_request_error', 'temperature'],
      [{ messages: [{ role: 'wizard', content: 'hi' }] }, OpenAI.UnprocessableEntityError, 422, 'invalid_request_error', 'messages'],
      [{ messages: [{ role: 'user', content: '[[sim:status=429]]' }] }, OpenAI.RateLimitError, 429, 'rate_limit_exceeded', null],
      [{ messages: [{ role: 'user', content: '[[sim:status=503]]' }] }, OpenAI.InternalServerError, 503, 'server_error', null],
      [{ messages: [{ role: 'user', content: '[[sim:non_json]]' }] }, OpenAI.InternalServerError, 502, 'UPSTREAM_ERROR', null],
    ])('%j -> %p %i %s', async (body, errorClass, status, code, param) => {
      const err = await attempt(body);
      expect(err).toBeInstanceOf(errorClass);
      expect(err).toMatchObject({ status, code, param });
    });
  });

  it('refusals cost nothing: the gateway own, the provider refusals and faults', async () => {
    const fresh = await gw.account('2');
    for (const body of [
      flash({ max_tokens: 0 }),
      flash({ temperature: 9 }),
      flash({ messages: [user('[[sim:status=503]]')] }),
      flash({ messages: [user('[[sim:empty]]')] }),
    ]) {
      expect((await gw.chat(fresh.key, body)).status).toBeGreaterThanOrEqual(400);
    }
    // Settlements land after the reply: give them time to, then check that none charged anything.
    await new Promise((r) => setTimeout(r, 500));
    expect(await gw.balanceMicro(fresh.accountId)).toBe(2_000_000);
    expect(await gw.usage(fresh.accountId)).toEqual({ todayTokens: 0, totalTokens: 0 });
  });
});
