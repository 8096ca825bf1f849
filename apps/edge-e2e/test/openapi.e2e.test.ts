import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { GatewayUnderTest, startGateway } from '@gw/test-stack';

const DOCUMENT = join(__dirname, '..', '..', '..', 'docs', 'openapi.yaml');

interface MediaType {
  schema: object;
}
interface ResponseObject {
  headers?: Record<string, { schema: object }>;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}

/**
 * docs/openapi.yaml held against a running edge: each reply's status is one the document gives
 * its operation, its content type one of that response's, every header it names is there and of
 * its schema, and the body is valid against the response's schema (JSON Schema 2020-12, as
 * OpenAPI 3.1 says).
 */
describe('docs/openapi.yaml against the running edge', () => {
  let gw: GatewayUnderTest;
  let paths: Record<string, Record<string, Operation>>;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  beforeAll(async () => {
    const api = (await SwaggerParser.dereference(DOCUMENT)) as unknown as { paths: typeof paths };
    paths = api.paths;
    gw = await startGateway();
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  /** Checks one reply against the document's response for its operation and status; returns its body. */
  async function conforms(res: Response, method: string, path: string): Promise<unknown> {
    const response = paths[path][method].responses[String(res.status)];
    expect({ path, status: res.status, documented: response !== undefined }).toEqual({ path, status: res.status, documented: true });
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    expect(Object.keys(response.content ?? {})).toContain(mediaType);
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = res.headers.get(name);
      expect({ header: name, present: value !== null }).toEqual({ header: name, present: true });
      const asJson = /^-?\d+(\.\d+)?$/.test(value as string) ? Number(value) : value;
      expect({ header: name, valid: ajv.validate(header.schema, asJson), errors: ajv.errors ?? null }).toEqual({
        header: name,
        valid: true,
        errors: null,
      });
    }
    const body = mediaType === 'application/json' ? await res.json() : await res.text();
    const valid = ajv.validate((response.content as Record<string, MediaType>)[mediaType].schema, body);
    expect({ path, status: res.status, errors: valid ? null : ajv.errors }).toEqual({ path, status: res.status, errors: null });
    return body;
  }

  it('a whole chat completion, a streamed one, the models, one model and the usage are what the document says', async () => {
    const { key } = await gw.account('5');
    const whole = await conforms(
      await gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'Hello' }] }),
      'post',
      '/v1/chat/completions',
    );
    expect(whole).toMatchObject({ object: 'chat.completion' });
    const streamed = await conforms(
      await gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'Hello' }], stream: true }),
      'post',
      '/v1/chat/completions',
    );
    expect(String(streamed).trim().endsWith('data: [DONE]')).toBe(true);
    const auth = { authorization: `Bearer ${key}` };
    const models = (await conforms(await fetch(`${gw.stack.baseUrl}/models`), 'get', '/v1/models')) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(['vendor-v4-flash', 'vendor-v4-pro']));
    await conforms(await fetch(`${gw.stack.baseUrl}/models/vendor-v4-pro`, { headers: auth }), 'get', '/v1/models/{id}');
    await conforms(await fetch(`${gw.stack.baseUrl}/usage`, { headers: auth }), 'get', '/v1/usage');
  });

  it('errors are the error object the document gives: no key, a wrong key, an unknown model, a bad body, a wrong method', async () => {
    const { key } = await gw.account('5');
    const auth = { authorization: `Bearer ${key}` };
    const missing = await conforms(await fetch(`${gw.stack.baseUrl}/usage`), 'get', '/v1/usage');
    expect(missing).toMatchObject({ error: { code: 'MISSING_API_KEY', type: 'authentication_error' } });
    const wrong = await conforms(await gw.chat('sk-shfr-0000', { model: 'vendor-v4-flash', messages: [] }), 'post', '/v1/chat/completions');
    expect(wrong).toMatchObject({ error: { code: 'INVALID_API_KEY' } });
    const unknown = await conforms(await fetch(`${gw.stack.baseUrl}/models/no-such-model`), 'get', '/v1/models/{id}');
    expect(unknown).toMatchObject({ error: { code: 'MODEL_NOT_FOUND' } });
    const badJson = await conforms(await gw.chat(key, '{"model":'), 'post', '/v1/chat/completions');
    expect(badJson).toMatchObject({ error: { code: 'INVALID_JSON', type: 'invalid_request_error', param: null } });
    const method = await conforms(await fetch(`${gw.stack.baseUrl}/usage`, { method: 'DELETE', headers: auth }), 'get', '/v1/usage');
    expect(method).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });
});
