import { AppError } from '@gw/errors';
import { checkChatRequest } from './check-chat-request';
import { UsableModel } from './chat-request';

const MODELS: UsableModel[] = [
  { id: 'vendor-v4-flash', vision: true },
  { id: 'vendor-v4-pro', vision: false },
];
const messages = [{ role: 'user', content: 'hi' }];
const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };

function refusal(body: unknown): { code: string; status: number; param: unknown; limit?: number } {
  try {
    checkChatRequest(typeof body === 'string' ? body : JSON.stringify(body), MODELS);
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, status: err.status, param: err.extras.param ?? null, limit: err.extras.limit };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('checkChatRequest: refusals (docs/api.md#every-error-code, the 400 rows)', () => {
  it.each([
    ['not JSON', '{"model":', 'INVALID_JSON', null],
    ['JSON but an array', '[1,2]', 'INVALID_JSON', null],
    ['JSON but a string', '"hello"', 'INVALID_JSON', null],
    ['JSON null', 'null', 'INVALID_JSON', null],
    ['nested 129 levels deep', `{"model":"vendor-v4-flash","messages":${'['.repeat(128)}${']'.repeat(128)}}`, 'INVALID_JSON', null],
  ])('%s -> %s', (_, body, code, param) => {
    expect(refusal(body)).toMatchObject({ code, status: 400, param });
  });

  it.each([
    ['model missing', { messages }, 'INVALID_PARAMETER', 'model'],
    ['model a number', { model: 4, messages }, 'INVALID_PARAMETER', 'model'],
    ['model null', { model: null, messages }, 'INVALID_PARAMETER', 'model'],
    ['model an object', { model: { id: 'vendor-v4-flash' }, messages }, 'INVALID_PARAMETER', 'model'],
    ['model an empty string', { model: '', messages }, 'MODEL_NOT_FOUND', 'model'],
    ['model with a space', { model: 'vendor-v4-flash ', messages }, 'MODEL_NOT_FOUND', 'model'],
    ['unknown model', { model: 'vendor-v5', messages }, 'MODEL_NOT_FOUND', 'model'],
    ['model in another case', { model: 'Vendor-V4-Flash', messages }, 'MODEL_NOT_FOUND', 'model'],
    ['stream a string', { model: 'vendor-v4-flash', messages, stream: 'true' }, 'INVALID_PARAMETER', 'stream'],
    ['stream null', { model: 'vendor-v4-flash', messages, stream: null }, 'INVALID_PARAMETER', 'stream'],
    ['stream 1', { model: 'vendor-v4-flash', messages, stream: 1 }, 'INVALID_PARAMETER', 'stream'],
    ['stream an object', { model: 'vendor-v4-flash', messages, stream: {} }, 'INVALID_PARAMETER', 'stream'],
    ['max_tokens 0', { model: 'vendor-v4-flash', messages, max_tokens: 0 }, 'INVALID_PARAMETER', 'max_tokens'],
    ['max_tokens 1.5', { model: 'vendor-v4-flash', messages, max_tokens: 1.5 }, 'INVALID_PARAMETER', 'max_tokens'],
    ['max_tokens a string', { model: 'vendor-v4-flash', messages, max_tokens: '10' }, 'INVALID_PARAMETER', 'max_tokens'],
    ['max_tokens null', { model: 'vendor-v4-flash', messages, max_tokens: null }, 'INVALID_PARAMETER', 'max_tokens'],
    ['max_tokens true', { model: 'vendor-v4-flash', messages, max_tokens: true }, 'INVALID_PARAMETER', 'max_tokens'],
    [
      'max_completion_tokens -1',
      { model: 'vendor-v4-flash', messages, max_completion_tokens: -1 },
      'INVALID_PARAMETER',
      'max_completion_tokens',
    ],
    [
      'max_completion_tokens 2.5',
      { model: 'vendor-v4-flash', messages, max_completion_tokens: 2.5 },
      'INVALID_PARAMETER',
      'max_completion_tokens',
    ],
    [
      'max_completion_tokens a string',
      { model: 'vendor-v4-flash', messages, max_completion_tokens: '5' },
      'INVALID_PARAMETER',
      'max_completion_tokens',
    ],
    ['functions', { model: 'vendor-v4-flash', messages, functions: [] }, 'INVALID_PARAMETER', 'functions'],
    ['function_call', { model: 'vendor-v4-flash', messages, function_call: 'auto' }, 'INVALID_PARAMETER', 'function_call'],
    ['functions null', { model: 'vendor-v4-flash', messages, functions: null }, 'INVALID_PARAMETER', 'functions'],
    [
      'json_schema',
      { model: 'vendor-v4-flash', messages, response_format: { type: 'json_schema' } },
      'INVALID_PARAMETER',
      'response_format',
    ],
  ])('%s -> %s (param %s)', (_, body, code, param) => {
    expect(refusal(body)).toMatchObject({ code, status: 400, param });
  });

  it('refuses an image for a model that does not read images', () => {
    expect(refusal({ model: 'vendor-v4-pro', messages: [{ role: 'user', content: [image] }] }).code).toBe('MODEL_NO_VISION');
  });

  it.each(['system', 'assistant', 'tool'])('refuses an image in a %s message', (role) => {
    expect(refusal({ model: 'vendor-v4-flash', messages: [{ role, content: [image] }] }).code).toBe('IMAGE_NOT_IN_USER_MESSAGE');
  });

  it('refuses an image for vendor-v4-pro also in its image form', () => {
    const part = { type: 'image', image: 'data:image/png;base64,AAAA' };
    expect(refusal({ model: 'vendor-v4-pro', messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, part] }] }).code).toBe(
      'MODEL_NO_VISION',
    );
  });

  it('counts images across user messages', () => {
    const user = (n: number) => ({ role: 'user', content: Array(n).fill(image) });
    expect(refusal({ model: 'vendor-v4-flash', messages: [user(20), { role: 'assistant', content: 'ok' }, user(13)] })).toMatchObject({
      code: 'TOO_MANY_IMAGES',
      param: 'messages',
      limit: 32,
    });
  });

  it('refuses 33 images with limit 32, and takes 32', () => {
    const many = (n: number) => ({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: Array(n).fill(image) }] });
    expect(refusal(many(33))).toMatchObject({ code: 'TOO_MANY_IMAGES', limit: 32 });
    expect(checkChatRequest(JSON.stringify(many(32)), MODELS).imageCount).toBe(32);
  });
});

describe('checkChatRequest: what is forwarded (docs/api.md#endpoints)', () => {
  const check = (extra: Record<string, unknown>) =>
    checkChatRequest(JSON.stringify({ model: 'vendor-v4-flash', messages, ...extra }), MODELS);

  it('defaults max_tokens to 8,192', () => {
    const r = check({});
    expect(r.maxTokens).toBe(8192);
    expect(r.body.max_tokens).toBe(8192);
  });

  it('lowers max_tokens above 32,768 to 32,768 without error', () => {
    expect(check({ max_tokens: 100000 })).toMatchObject({ maxTokens: 32768, body: { max_tokens: 32768 } });
    expect(check({ max_completion_tokens: 40000 })).toMatchObject({ maxTokens: 32768, body: { max_completion_tokens: 32768 } });
  });

  it('sends max_completion_tokens alone when only it is given', () => {
    const r = check({ max_completion_tokens: 100 });
    expect(r.maxTokens).toBe(100);
    expect(r.body).not.toHaveProperty('max_tokens');
  });

  it('lowers each limit on its own when both are given; max_completion_tokens is the one that counts', () => {
    const r = check({ max_tokens: 50000, max_completion_tokens: 200 });
    expect(r.body).toMatchObject({ max_tokens: 32768, max_completion_tokens: 200 });
    expect(r.maxTokens).toBe(200);
  });

  it('keeps values at or below the ceiling', () => {
    expect(check({ max_tokens: 32768 }).maxTokens).toBe(32768);
    expect(check({ max_tokens: 1 }).maxTokens).toBe(1);
  });

  it('leaves what the provider checks untouched', () => {
    const r = check({ n: 2, temperature: 5, stop: Array(17).fill('x'), thinking: { type: 'enabled' }, tools: [{ type: 'function' }] });
    expect(r.body).toMatchObject({ n: 2, temperature: 5, thinking: { type: 'enabled' }, tools: [{ type: 'function' }] });
  });

  it('reads stream and include_usage', () => {
    expect(check({ stream: true, stream_options: { include_usage: true } })).toMatchObject({ stream: true, includeUsage: true });
    expect(check({ stream: true })).toMatchObject({ stream: true, includeUsage: false });
    expect(check({ stream: true, stream_options: { include_usage: false } })).toMatchObject({ stream: true, includeUsage: false });
    expect(check({ stream: false })).toMatchObject({ stream: false, includeUsage: false });
  });

  it('always asks the provider for usage on a stream, keeping the other stream options', () => {
    expect(check({ stream: true }).body.stream_options).toEqual({ include_usage: true });
    expect(check({ stream: true, stream_options: { include_usage: false, other: 1 } }).body.stream_options).toEqual({
      include_usage: true,
      other: 1,
    });
    expect(check({}).body).not.toHaveProperty('stream_options');
    expect(check({ stream: true, stream_options: null }).body.stream_options).toEqual({ include_usage: true });
    expect(check({ stream: true, stream_options: 'usage' }).body.stream_options).toBe('usage');
  });

  it('takes nesting up to 128 levels deep', () => {
    const deep = JSON.parse(`${'['.repeat(126)}${']'.repeat(126)}`) as unknown;
    expect(check({ metadata: deep }).body.metadata).toEqual(deep);
  });

  it('passes tools, JSON mode, images, thinking and reasoning_effort unchanged', () => {
    const extra = {
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
      thinking: { type: 'disabled' },
      reasoning_effort: 'none',
    };
    const withImage = [{ role: 'user', content: [{ type: 'text', text: 'look' }, image] }];
    const r = checkChatRequest(JSON.stringify({ model: 'vendor-v4-flash', messages: withImage, ...extra }), MODELS);
    expect(r.body).toEqual({ model: 'vendor-v4-flash', messages: withImage, ...extra, max_tokens: 8192 });
    expect(r.imageCount).toBe(1);
  });
});
