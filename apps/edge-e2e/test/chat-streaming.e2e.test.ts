import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { GatewayUnderTest, readEvents, startGateway } from '@gw/test-stack';

const MODEL = 'vendor-v4-flash';
const ask = (text: string) => [{ role: 'user' as const, content: text }];
const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('whole and streamed replies through the openai client (docs/api.md: overview, endpoints)', () => {
  let gw: GatewayUnderTest;
  let client: OpenAI;

  beforeAll(async () => {
    gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '10000' });
    const { key } = await gw.account('20');
    client = new OpenAI({ baseURL: gw.stack.baseUrl, apiKey: key, maxRetries: 0 });
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  /** Sends fields the SDK's types do not know (thinking), as the provider's extra fields. */
  const createRaw = (body: Record<string, unknown>) =>
    client.chat.completions.create({ model: MODEL, messages: ask('hi'), ...body } as unknown as ChatCompletionCreateParamsNonStreaming);

  it('answers a whole reply', async () => {
    const reply = await client.chat.completions.create({ model: MODEL, messages: ask('Hello there') });
    expect(reply.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'Echo: Hello there' } });
    expect(reply.usage?.completion_tokens).toBe(3);
  });

  it('streams, with no usage chunk unless asked, and the same usage as the whole reply when asked', async () => {
    const whole = await client.chat.completions.create({ model: MODEL, messages: ask('a b c') });
    const chunks = await collect(await client.chat.completions.create({ model: MODEL, messages: ask('a b c'), stream: true }));
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Echo: a b c');
    expect(chunks.every((c) => c.choices.length === 1 && !c.usage)).toBe(true);

    const withUsage = await collect(
      await client.chat.completions.create({ model: MODEL, messages: ask('a b c'), stream: true, stream_options: { include_usage: true } }),
    );
    const last = withUsage[withUsage.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(whole.usage);
    expect(withUsage).toHaveLength(chunks.length + 1);
  });

  it('calls tools, whole and streamed, and reads the tool result', async () => {
    const messages = ask('What is the weather in Benghazi?');
    const reply = await client.chat.completions.create({ model: MODEL, messages, tools: [weatherTool] });
    const call = reply.choices[0].message.tool_calls?.[0];
    expect(reply.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ location: 'Benghazi' });

    const chunks = await collect(await client.chat.completions.create({ model: MODEL, messages, tools: [weatherTool], stream: true }));
    const args = chunks.map((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '').join('');
    expect(JSON.parse(args)).toEqual({ location: 'Benghazi' });

    const answer = await client.chat.completions.create({
      model: MODEL,
      tools: [weatherTool],
      messages: [...messages, reply.choices[0].message, { role: 'tool', tool_call_id: call?.id ?? '', content: 'Sunny, 31 C' }],
    });
    expect(answer.choices[0].message.content).toBe('Tool result: Sunny, 31 C');
  });

  it('passes thinking, reasoning_effort, JSON mode and images to the provider unchanged', async () => {
    const reasoningOf = (r: OpenAI.ChatCompletion) => (r.choices[0].message as { reasoning_content?: string }).reasoning_content;
    expect(reasoningOf(await createRaw({ thinking: { type: 'enabled' } }))).toEqual(expect.any(String));
    expect(reasoningOf(await createRaw({ thinking: { type: 'disabled' } }))).toBeUndefined();
    expect(reasoningOf(await createRaw({ reasoning_effort: 'high' }))).toEqual(expect.any(String));
    expect(reasoningOf(await createRaw({ reasoning_effort: 'none' }))).toBeUndefined();

    const json = await client.chat.completions.create({ model: MODEL, messages: ask('say hi'), response_format: { type: 'json_object' } });
    expect(JSON.parse(json.choices[0].message.content ?? '')).toEqual({ reply: 'Echo: say hi' });

    const seen = await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(seen.usage?.prompt_tokens).toBeGreaterThan(1024);
  });

  it('sends a stream as Server-Sent Events that nothing on the way may buffer', async () => {
    const res = await fetch(`${gw.stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json', 'x-request-id': 'stream-trace-1' },
      body: JSON.stringify({ model: MODEL, messages: ask('x y'), stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('x-request-id')).toBe('stream-trace-1');
    expect(res.headers.get('x-ratelimit-limit')).toBe('10000');
    const { events, error } = await readEvents(res);
    expect(error).toBeUndefined();
    expect(events[events.length - 1]).toBe('[DONE]');
  });

  it('passes the first piece on before the provider has sent the second', async () => {
    const res = await fetch(`${gw.stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: ask('[[sim:words=0,piece_delay_ms=800]]'), stream: true }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const firstAt = Date.now();
    // provider-sim sends the role chunk at once and the next one 0.8 s later: had the edge held
    // the first piece back, both would come in one read or back to back.
    expect(first).toMatch(/^data: .*"role":"assistant"/);
    expect(first.match(/^data: /gm)).toHaveLength(1);
    const second = await reader.read();
    expect(second.done).toBe(false);
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(400);
    while (!(await reader.read()).done);
  });
});
