import { ChatRequestResult, DEFAULT_MAX_TOKENS, parseChatRequest } from './chat-request';

const user = (content: unknown) => ({ role: 'user', content });
const parse = (body: Record<string, unknown>) =>
  parseChatRequest(JSON.stringify({ model: 'vendor-v4-flash', messages: [user('hi')], ...body }));
const refusalOf = (result: ChatRequestResult) => (result.ok ? undefined : result.refusal);

describe('parseChatRequest', () => {
  it('reads a plain request with its defaults', () => {
    const result = parse({});
    expect(result.ok && result.request).toMatchObject({
      model: 'vendor-v4-flash',
      stream: false,
      includeUsage: false,
      maxTokens: DEFAULT_MAX_TOKENS,
      thinking: false,
      jsonMode: false,
      tools: [],
      toolChoice: 'auto',
      lastRole: 'user',
      lastUserText: 'hi',
    });
  });

  it('refuses a body that is not JSON, or not an object, with 400', () => {
    expect(refusalOf(parseChatRequest('{nope'))).toMatchObject({ status: 400, param: null });
    expect(refusalOf(parseChatRequest('[1]'))).toMatchObject({ status: 400 });
  });

  it('refuses missing messages and unknown roles with 422, an empty list with 400', () => {
    expect(refusalOf(parseChatRequest('{"model":"m"}'))).toMatchObject({ status: 422, param: 'messages' });
    expect(refusalOf(parse({ messages: 'hi' }))).toMatchObject({ status: 422, param: 'messages' });
    expect(refusalOf(parse({ messages: [{ role: 'robot', content: 'x' }] }))).toMatchObject({ status: 422, param: 'messages' });
    expect(refusalOf(parse({ messages: [] }))).toMatchObject({ status: 400, param: 'messages' });
  });

  it('accepts every known role', () => {
    const messages = ['system', 'developer', 'assistant', 'tool', 'user'].map((role) => ({ role, content: 'x' }));
    expect(parse({ messages }).ok).toBe(true);
  });

  it.each([
    [{ n: 2 }, 'n'],
    [{ stop: Array.from({ length: 17 }, (_, i) => `s${i}`) }, 'stop'],
    [{ stop: [1] }, 'stop'],
    [{ temperature: 2.1 }, 'temperature'],
    [{ temperature: -0.1 }, 'temperature'],
    [{ top_logprobs: 21 }, 'top_logprobs'],
    [{ top_logprobs: -1 }, 'top_logprobs'],
    [{ max_tokens: 0 }, 'max_tokens'],
    [{ max_completion_tokens: 1.5 }, 'max_completion_tokens'],
    [{ model: 7 }, 'model'],
    [{ tools: [{ type: 'function' }] }, 'tools'],
    [{ tool_choice: 'required' }, 'tool_choice'],
  ])('refuses %j with 400 naming %s', (body, param) => {
    expect(refusalOf(parse(body))).toMatchObject({ status: 400, param });
  });

  it('accepts the edges of each range', () => {
    const stop = Array.from({ length: 16 }, (_, i) => `s${i}`);
    expect(parse({ n: 1, stop, temperature: 0, top_logprobs: 20 }).ok).toBe(true);
    expect(parse({ temperature: 2, top_logprobs: 0, stop: 'x', n: null }).ok).toBe(true);
  });

  it('reads images: base64 data and https URLs pass, others are refused', () => {
    const image = (url: string) => parse({ messages: [user([{ type: 'image_url', image_url: { url } }])] });
    expect(image('data:image/png;base64,iVBORw0KGgo=').ok).toBe(true);
    expect(image('https://example.com/cat.png').ok).toBe(true);
    for (const url of [
      'https://example.com/unreadable.png',
      'http://example.com/cat.png',
      'data:text/plain;base64,aGk=',
      'data:image/png;base64,@@',
    ]) {
      expect(refusalOf(image(url))).toMatchObject({ status: 400, param: 'messages' });
    }
  });

  it('turns thinking on for enabled, adaptive or a reasoning effort other than none', () => {
    const thinking = (body: Record<string, unknown>) => {
      const result = parse(body);
      return result.ok && result.request.thinking;
    };
    expect(thinking({ thinking: { type: 'enabled' } })).toBe(true);
    expect(thinking({ thinking: { type: 'adaptive' } })).toBe(true);
    expect(thinking({ reasoning_effort: 'high' })).toBe(true);
    expect(thinking({ thinking: { type: 'disabled' } })).toBe(false);
    expect(thinking({ reasoning_effort: 'none' })).toBe(false);
  });

  it('reads the last user text from text parts, and the tools and their choice', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const result = parse({
      messages: [
        user([
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ]),
        { role: 'assistant', content: 'ok' },
      ],
      tools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_completion_tokens: 5,
      max_tokens: 9,
      stream: true,
      stream_options: { include_usage: true },
      response_format: { type: 'json_object' },
    });
    expect(result.ok && result.request).toMatchObject({
      lastUserText: 'first second',
      lastRole: 'assistant',
      lastText: 'ok',
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
      toolChoice: { name: 'get_weather' },
      maxTokens: 5,
      stream: true,
      includeUsage: true,
      jsonMode: true,
    });
  });
});
