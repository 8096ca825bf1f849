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

describe('checkChatRequest: refusals (SPEC 7, 400 rows)', () => {
  it.each([
    ['not JSON', '{"model":', 'INVALID_JSON', null],
    ['JSON but an array', '[1,2]', 'INVALID_JSON', null],
    ['JSON but a string', '"hello"', 'INVALID_JSON', null],
    ['JSON null', 'null', 'INVALID_JSON', null],
  ])('%s -> %s', (_, body, code, param) => {
    expect(refusal(body)).toMatchObject({ code, status: 400, param });
  });

  it.each([
    ['model missing', { messages }, 'INVALID_PARAMETER', 'model'],
    ['model a number', { model: 4, messages }, 'INVALID_PARAMETER', 'model'],
    ['unknown model', { model: 'vendor-v5', messages }, 'MODEL_NOT_FOUND', 'model'],
    ['model in another case', { model: 'Vendor-V4-Flash', messages }, 'MODEL_NOT_FOUND', 'model'],
    ['stream a string', { model: 'vendor-v4-flash', messages, stream: 'true' }, 'INVALID_PARAMETER', 'stream'],
    ['stream null', { model: 'vendor-v4-flash', messages, stream: null }, 'INVALID_PARAMETER', 'stream'],
    ['max_tokens 0', { model: 'vendor-v4-flash', messages, max_tokens: 0 }, 'INVALID_PARAMETER', 'max_tokens'],
    ['max_tokens 1.5', { model: 'vendor-v4-flash', messages, max_tokens: 1.5 }, 'INVALID_PARAMETER', 'max_tokens'],
    ['max_tokens a string', { model: 'vendor-v4-flash', messages, max_tokens: '10' }, 'INVALID_PARAMETER', 'max_tokens'],
    ['max_completion_tokens -1', { model: 'vendor-v4-flash', messages, max_completion_tokens: -1 }, 'INVALID_PARAMETER', 'max_completion_tokens'],
    ['functions', { model: 'vendor-v4-flash', messages, functions: [] }, 'INVALID_PARAMETER', 'functions'],
    ['function_call', { model: 'vendor-v4-flash', messages, function_call: 'auto' }, 'INVALID_PARAMETER', 'function_call'],
    ['json_schema', { model: 'vendor-v4-flash', messages, response_format: { type: 'json_schema' } }, 'INVALID_PARAMETER', 'response_format'],
  ])('%s -> %s (param %s)', (_, body, code, param) => {
    expect(refusal(body)).toMatchObject({ code, status: 400, param });
  });

  it('refuses an image for a model that does not read images', () => {
    expect(refusal({ model: 'vendor-v4-pro', messages: [{ role: 'user', content: [image] }] }).code).toBe('MODEL_NO_VISION');
  });

  it.each(['system', 'assistant', 'tool'])('refuses an image in a %s message', (role) => {
    expect(refusal({ model: 'vendor-v4-flash', messages: [{ role, content: [image] }] }).code).toBe('IMAGE_NOT_IN_USER_MESSAGE');
  });

  it('refuses 33 images with limit 32, and takes 32', () => {
    const many = (n: number) => ({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: Array(n).fill(image) }] });
    expect(refusal(many(33))).toMatchObject({ code: 'TOO_MANY_IMAGES', limit: 32 });
    expect(checkChatRequest(JSON.stringify(many(32)), MODELS).imageCount).toBe(32);
  });
});

describe('checkChatRequest: what is forwarded (SPEC 4)', () => {
  const check = (extra: Record<string, unknown>) => checkChatRequest(JSON.stringify({ model: 'vendor-v4-flash', messages, ...extra }), MODELS);

  it('defaults max_tokens to 8,192', () => {
    const r = check({});
    expect(r.maxTokens).toBe(8192);
    expect(r.body.max_tokens).toBe(8192);
  });

  it('lowers max_tokens above 32,768 to 32,768 without error', () => {
    expect(check({ max_tokens: 100000 }).body.max_tokens).toBe(32768);
    expect(check({ max_completion_tokens: 40000 }).body.max_completion_tokens).toBe(32768);
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
    expect(check({ stream: false })).toMatchObject({ stream: false, includeUsage: false });
  });
});
