import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { errorOf, GatewayUnderTest, startGateway } from '@gw/test-stack';

const LIMIT = 2 * 1024 * 1024;

/** Any header a browser would need for a cross-origin call. */
const corsHeaders = (res: Response) => [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('front guard (docs/api.md: endpoints, authentication, replies of the servers in front): what the servers in front of the API answer', () => {
  let gw: GatewayUnderTest;
  let key: string;
  let base: string;

  beforeAll(async () => {
    gw = await startGateway();
    base = gw.stack.baseUrl;
    ({ key } = await gw.account());
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  describe('403 error code: 1010 for the default User-Agents of standard-library HTTP clients', () => {
    it.each([
      'Python-urllib/3.12',
      'Go-http-client/1.1',
      'Go-http-client/2.0',
      'Java-http-client/21.0.2',
      'Java/1.8.0_392',
      'Ruby',
      'Dart/3.4 (dart:io)',
    ])('%s is refused, as plain text without x-request-id', async (agent) => {
      for (const res of [
        await gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hi' }] }, { 'user-agent': agent }),
        await fetch(`${base}/models`, { headers: { 'user-agent': agent } }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(res.headers.get('x-request-id')).toBeNull();
        expect(await res.text()).toBe('error code: 1010');
      }
    });

    it.each(['curl/8.5.0', 'python-requests/2.32.3', 'Mozilla/5.0 (X11; Linux x86_64)', 'my-app/1.0 Python-urllib/3.12'])(
      '%s passes',
      async (agent) => {
        const res = await fetch(`${base}/models`, { headers: { 'user-agent': agent } });
        expect(res.status).toBe(200);
      },
    );

    it('lets the openai npm client through', async () => {
      const client = new OpenAI({ baseURL: base, apiKey: key, maxRetries: 0 });
      const models = await client.models.list();
      expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(['vendor-v4-flash', 'vendor-v4-pro']));
    });
  });

  describe('404 NOT_FOUND for every path not served', () => {
    it.each([
      ['POST', '/v1/embeddings'],
      ['POST', '/v1/completions'],
      ['POST', '/v1/responses'],
      ['POST', '/v1/images/generations'],
      ['POST', '/v1/audio/speech'],
      ['POST', '/v1/audio/transcriptions'],
      ['GET', '/v1/files'],
      ['POST', '/v1/files'],
      ['POST', '/v1/batches'],
      ['POST', '/v1/fine_tuning/jobs'],
      ['GET', '/v1/assistants'],
      ['POST', '/v1/moderations'],
      ['GET', '/'],
      ['GET', '/v1'],
      ['POST', '/v2/chat/completions'],
      ['POST', '/v1/chat/completions/'],
      ['POST', '/V1/chat/completions'],
      ['GET', '/v1/models/'],
      ['GET', '/v1/usage/extra'],
    ])('%s %s', async (method, path) => {
      const res = await fetch(`${base.replace(/\/v1$/, '')}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await errorOf(res)).toMatchObject({ code: 'NOT_FOUND', type: 'invalid_request_error', param: null });
    });

    it('a path that cannot be decoded is not served either', async () => {
      const res = await fetch(`${base}/models/%E0%A4%A`);
      expect(res.status).toBe(404);
      expect((await errorOf(res)).code).toBe('NOT_FOUND');
    });

    it('reaches the openai client as NotFoundError with the code', async () => {
      const client = new OpenAI({ baseURL: base, apiKey: key, maxRetries: 0 });
      const err = await client.embeddings.create({ model: 'vendor-v4-flash', input: 'hi' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    });
  });

  describe('405 METHOD_NOT_ALLOWED with Allow on a served path', () => {
    it.each([
      ['GET', '/chat/completions', 'POST'],
      ['PUT', '/chat/completions', 'POST'],
      ['DELETE', '/chat/completions', 'POST'],
      ['PATCH', '/chat/completions', 'POST'],
      ['POST', '/models', 'GET'],
      ['DELETE', '/models', 'GET'],
      ['POST', '/models/vendor-v4-flash', 'GET'],
      ['POST', '/usage', 'GET'],
    ])('%s %s -> Allow: %s', async (method, path, allow) => {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await errorOf(res)).toMatchObject({ code: 'METHOD_NOT_ALLOWED', type: 'invalid_request_error' });
    });
  });

  describe('no CORS headers, ever', () => {
    it('answers a browser preflight with 405 and no access-control header', async () => {
      const res = await fetch(`${base}/chat/completions`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(corsHeaders(res)).toEqual([]);
    });

    it('OPTIONS on other paths: 405 or 404, never CORS', async () => {
      for (const [path, status] of [
        ['/models', 405],
        ['/usage', 405],
        ['/nowhere', 404],
      ] as const) {
        const res = await fetch(`${base}${path}`, { method: 'OPTIONS', headers: { origin: 'https://example.com' } });
        expect(res.status).toBe(status);
        expect(corsHeaders(res)).toEqual([]);
      }
    });

    it('sends none on answers to a cross-origin request either', async () => {
      const headers = { origin: 'https://example.com', authorization: `Bearer ${key}` };
      const answers = [
        await fetch(`${base}/models`, { headers }),
        await gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hi' }] }, headers),
        await gw.chat(key, '{', headers),
      ];
      expect(answers.map((res) => res.status)).toEqual([200, 200, 400]);
      for (const res of answers) expect(corsHeaders(res)).toEqual([]);
    });
  });

  describe('x-request-id on every JSON reply', () => {
    it('echoes the caller value on success and on errors of every kind', async () => {
      const id = 'trace-Front-42';
      const answers = [
        await fetch(`${base}/models`, { headers: { 'x-request-id': id } }),
        await gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hi' }] }, { 'x-request-id': id }),
        await gw.chat(key, 'nope', { 'x-request-id': id }),
        await gw.chat(undefined, '{}', { 'x-request-id': id }),
        await fetch(`${base}/embeddings`, { method: 'POST', headers: { 'x-request-id': id } }),
        await fetch(`${base}/chat/completions`, { headers: { 'x-request-id': id } }),
      ];
      expect(answers.map((res) => res.status)).toEqual([200, 200, 400, 401, 404, 405]);
      for (const res of answers) expect(res.headers.get('x-request-id')).toBe(id);
    });

    it('makes a new one when the caller sent none or one it cannot use', async () => {
      const none = await fetch(`${base}/models`);
      const unusable = await fetch(`${base}/models`, { headers: { 'x-request-id': 'has spaces in it' } });
      const ids = [none, unusable].map((res) => res.headers.get('x-request-id'));
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(ids[0]).not.toBe(ids[1]);
    });
  });

  describe('413 with an HTML page for a body over 2 MB', () => {
    const expect413 = async (res: Response) => {
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('x-request-id')).toBeNull();
      expect(await res.text()).toContain('413');
    };

    it('refuses a declared length over the limit, before looking at the key', async () => {
      await expect413(await gw.chat(key, 'x'.repeat(LIMIT + 1)));
      await expect413(await gw.chat(undefined, 'x'.repeat(LIMIT + 1)));
    });

    it('takes a body of exactly 2 MB', async () => {
      const body = JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 1, messages: [{ role: 'user', content: '' }] });
      const exact = body.replace('"content":""', `"content":"${'a'.repeat(LIMIT - body.length)}"`);
      expect(Buffer.byteLength(exact)).toBe(LIMIT);
      const res = await gw.chat(key, exact);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: { finish_reason: string }[] }).choices[0].finish_reason).toBe('length');
    });

    it('counts a chunked body while it arrives', async () => {
      const piece = new Uint8Array(64 * 1024).fill(0x61);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 3 * LIMIT) return controller.close();
          sent += piece.length;
          controller.enqueue(piece);
        },
      });
      const res = await fetch(`${base}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.headers.get('transfer-encoding')).not.toBe('chunked');
      await expect413(res);
    });

    it('refuses a chunked body sent over node:http too (with a key: without one, the 401 comes before the body is read)', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const url = new URL(`${base}/chat/completions`);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'transfer-encoding': 'chunked', authorization: `Bearer ${key}` },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        const piece = Buffer.alloc(256 * 1024, 0x62);
        const write = (left: number) => {
          if (left === 0 || req.destroyed) return req.end();
          req.write(piece, () => write(left - 1));
        };
        write(12);
      });
      expect(status).toBe(413);
    });
  });
});
