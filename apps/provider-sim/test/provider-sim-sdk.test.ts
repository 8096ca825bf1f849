import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { createLogger } from '@gw/service-kit';
import { loadConfig } from '../src/config';
import { ProviderSimApp, startProviderSimApp } from '../src/provider-sim-app';
import { REASONING_TEXT } from '../src/reply-plan';
import type { SimStatsSnapshot } from '../src/sim-stats';

// The provider as the gateway's client library sees it: a configured key, the openai SDK, real HTTP.
const KEY = 'sim-key-for-tests';
const MODEL = 'vendor-v4-flash';
const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

let app: ProviderSimApp;
let client: OpenAI;

beforeAll(async () => {
  const env = { PROVIDER_SIM_PORT: '0', BIND_HOST: '127.0.0.1', PROVIDER_SIM_API_KEY: KEY, SHUTDOWN_GRACE_MS: '1000' };
  app = await startProviderSimApp(
    loadConfig(env),
    createLogger('provider-sim', 'error', () => undefined),
  );
  client = new OpenAI({ baseURL: `http://127.0.0.1:${app.port}/v1`, apiKey: KEY, maxRetries: 0 });
});

afterAll(() => app.stop());

const ask = (text: string) => [{ role: 'user' as const, content: text }];

/** Sends a body the SDK's types would not allow, to reach the provider's own checks. */
const createRaw = (body: Record<string, unknown>) =>
  client.chat.completions.create({ model: MODEL, messages: ask('hi'), ...body } as unknown as ChatCompletionCreateParamsNonStreaming);

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('provider-sim through the openai SDK', () => {
  it('answers a whole reply deterministically, with usage and its own request id', async () => {
    const { data, response } = await client.chat.completions.create({ model: MODEL, messages: ask('hello  world') }).withResponse();
    expect(response.headers.get('x-request-id')).toMatch(/^prov-[0-9a-f]{24}$/);
    expect(data).toMatchObject({ object: 'chat.completion', model: MODEL });
    expect(data.id).toMatch(/^chatcmpl-[0-9a-f]+$/);
    expect(Math.abs(data.created - Date.now() / 1000)).toBeLessThan(5);
    expect(data.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Echo: hello world' },
    });
    expect(data.usage).toMatchObject({ completion_tokens: 3, total_tokens: (data.usage?.prompt_tokens ?? 0) + 3 });
    const again = await client.chat.completions.create({ model: MODEL, messages: ask('hello  world') });
    expect(again.choices[0].message.content).toBe(data.choices[0].message.content);
    expect(again.usage?.prompt_tokens).toBe(data.usage?.prompt_tokens);
  });

  it('cuts the reply at max_tokens with finish_reason length', async () => {
    const reply = await client.chat.completions.create({ model: MODEL, messages: ask('one two three four'), max_tokens: 2 });
    expect(reply.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Echo: one' } });
    expect(reply.usage?.completion_tokens).toBe(2);
  });

  it('thinks when asked, reporting reasoning content and tokens', async () => {
    const reply = await createRaw({ thinking: { type: 'enabled' }, messages: ask('ping') });
    const message = reply.choices[0].message as (typeof reply.choices)[0]['message'] & { reasoning_content?: string };
    expect(message.reasoning_content).toBe(REASONING_TEXT);
    expect(message.content).toBe('Echo: ping');
    const reasoning = REASONING_TEXT.split(' ').length;
    expect(reply.usage).toMatchObject({ completion_tokens: reasoning + 2, completion_tokens_details: { reasoning_tokens: reasoning } });
  });

  it('streams one chunk per word, ends at [DONE], and sends usage only when asked', async () => {
    const chunks = await collect(await client.chat.completions.create({ model: MODEL, messages: ask('a b c'), stream: true }));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Echo: a b c');
    expect(chunks).toHaveLength(1 + 4 + 1);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);

    const withUsage = await collect(
      await client.chat.completions.create({ model: MODEL, messages: ask('a b c'), stream: true, stream_options: { include_usage: true } }),
    );
    const last = withUsage[withUsage.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 4 });
    expect(withUsage).toHaveLength(chunks.length + 1);
  });

  it('streams reasoning words before the content', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: ask('x'),
      stream: true,
      reasoning_effort: 'low',
    });
    const deltas = (await collect(stream)).map(
      (chunk) => chunk.choices[0].delta as { content?: string | null; reasoning_content?: string },
    );
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toBe(REASONING_TEXT);
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('Echo: x');
  });

  it('calls a tool when asked about the weather, whole and streamed', async () => {
    const messages = ask('What is the weather in Benghazi?');
    const reply = await client.chat.completions.create({ model: MODEL, messages, tools: [weatherTool] });
    const call = reply.choices[0].message.tool_calls?.[0];
    expect(reply.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call?.id).toMatch(/^call_/);
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ location: 'Benghazi' });

    const chunks = await collect(await client.chat.completions.create({ model: MODEL, messages, tools: [weatherTool], stream: true }));
    const pieces = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(pieces[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), function: { name: 'get_weather' } });
    expect(JSON.parse(pieces.map((piece) => piece.function?.arguments ?? '').join(''))).toEqual({ location: 'Benghazi' });
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });

  it('answers after a tool result, and calls the tool a forced tool_choice names', async () => {
    const followUp = await client.chat.completions.create({
      model: MODEL,
      tools: [weatherTool],
      messages: [
        ...ask('weather in Tripoli?'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    expect(followUp.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Tool result: sunny' } });
    const forced = await client.chat.completions.create({
      model: MODEL,
      messages: ask('hello'),
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(forced.choices[0].message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather' } });
  });

  it('answers JSON mode with a JSON object', async () => {
    const reply = await client.chat.completions.create({ model: MODEL, messages: ask('hi'), response_format: { type: 'json_object' } });
    expect(JSON.parse(reply.choices[0].message.content ?? '')).toEqual({ reply: 'Echo: hi' });
  });

  it.each([
    ['messages missing', { messages: undefined }, 422, 'messages'],
    ['an unknown role', { messages: [{ role: 'robot', content: 'x' }] }, 422, 'messages'],
    ['messages empty', { messages: [] }, 400, 'messages'],
    ['n of 2', { n: 2 }, 400, 'n'],
    ['17 stop strings', { stop: Array.from({ length: 17 }, (_, i) => `s${i}`) }, 400, 'stop'],
    ['temperature 2.5', { temperature: 2.5 }, 400, 'temperature'],
    ['top_logprobs 21', { top_logprobs: 21, logprobs: true }, 400, 'top_logprobs'],
    [
      'an unreadable image',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/unreadable.png' } }] }] },
      400,
      'messages',
    ],
    ['a bad sim directive', { messages: ask('[[sim:nope]]') }, 400, 'messages'],
  ])('refuses %s in the provider format', async (_name, body, status, param) => {
    await expect(createRaw(body)).rejects.toMatchObject({ status, code: 'invalid_request_error', type: 'invalid_request_error', param });
  });

  it('refuses a body that is not JSON with 400', async () => {
    const res = await fetch(`http://127.0.0.1:${app.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'invalid_request_error' },
    });
  });

  it('refuses a wrong key with 401 and records only the start of the key it saw', async () => {
    const stranger = new OpenAI({ baseURL: `http://127.0.0.1:${app.port}/v1`, apiKey: 'sk-caller-0123456789', maxRetries: 0 });
    await expect(stranger.chat.completions.create({ model: MODEL, messages: ask('hi') })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      type: 'authentication_error',
    });
    const stats = async () => (await (await fetch(`http://127.0.0.1:${app.port}/sim/stats`)).json()) as SimStatsSnapshot;
    expect((await stats()).lastAuthorization).toBe('Bearer sk-calle');
    await client.chat.completions.create({ model: MODEL, messages: ask('hi') });
    expect((await stats()).lastAuthorization).toBe(`Bearer ${KEY.slice(0, 8)}`);
  });

  it('raises a 503 fault through the SDK as a server error', async () => {
    await expect(client.chat.completions.create({ model: MODEL, messages: ask('[[sim:status=503]]') })).rejects.toMatchObject({
      status: 503,
      code: 'server_error',
      type: 'server_error',
    });
  });
});
