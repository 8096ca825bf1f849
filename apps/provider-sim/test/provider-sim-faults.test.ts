import { createLogger } from '@gw/service-kit';
import { eventually } from '@gw/testing';
import type { ChatCompletion } from '../src/completion-body';
import { loadConfig } from '../src/config';
import type { ProviderErrorBody } from '../src/provider-error';
import { ProviderSimApp, startProviderSimApp } from '../src/provider-sim-app';
import type { SimStatsSnapshot } from '../src/sim-stats';

// Faults and the simulator's own endpoints over raw HTTP (fetch, that is undici); no key configured.
let app: ProviderSimApp;
let base: string;

beforeAll(async () => {
  const env = { PROVIDER_SIM_PORT: '0', BIND_HOST: '127.0.0.1', SHUTDOWN_GRACE_MS: '1000' };
  app = await startProviderSimApp(
    loadConfig(env),
    createLogger('provider-sim', 'error', () => undefined),
  );
  base = `http://127.0.0.1:${app.port}`;
});

afterAll(() => app.stop());

const chat = (text: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer gateway-own-key' },
    body: JSON.stringify({ model: 'vendor-v4-pro', messages: [{ role: 'user', content: text }], ...extra }),
    signal,
  });

/** Reads a body to its end or its break; `pieces` counts the reads that brought data. */
async function drain(res: Response): Promise<{ text: string; pieces: number; error: unknown }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let pieces = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, pieces, error: undefined };
      text += decoder.decode(value, { stream: true });
      pieces += 1;
    }
  } catch (error) {
    return { text, pieces, error };
  }
}

const readJson = async <T>(res: Response): Promise<T> => (await res.json()) as T;
const getStats = async () => readJson<SimStatsSnapshot>(await fetch(`${base}/sim/stats`));

describe('provider-sim faults', () => {
  it('writes the SSE wire format, one event per chunk, ending with [DONE]', async () => {
    const res = await chat('one two [[sim:piece_delay_ms=20]]', { stream: true });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-request-id')).toMatch(/^prov-/);
    const { text, pieces, error } = await drain(res);
    expect(error).toBeUndefined();
    const events = text.split('\n\n').filter((event) => event !== '');
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
    expect(events[events.length - 1]).toBe('data: [DONE]');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(events).toHaveLength(1 + 3 + 1 + 1);
    expect(pieces).toBe(events.length);
  });

  it('break_after: a stream stops after N chunks, without [DONE]', async () => {
    const res = await chat('a b c d e [[sim:break_after=3]]', { stream: true });
    expect(res.status).toBe(200);
    const { text, error } = await drain(res);
    expect(error).toBeDefined();
    expect(text.match(/^data: /gm)).toHaveLength(3);
    expect(text).not.toContain('[DONE]');
  });

  it('break_after: a whole reply sends its headers and part of the body, then breaks', async () => {
    const res = await chat('a b c [[sim:break_after=10]]');
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(10);
    const { text, error } = await drain(res);
    expect(error).toBeDefined();
    expect(text.length).toBeLessThanOrEqual(10);
  });

  it('non_json: 200 with an HTML body, or the status given', async () => {
    const res = await chat('[[sim:non_json]]');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toMatch(/^<html>/);
    const bad = await chat('[[sim:non_json,status=502]]');
    expect(bad.status).toBe(502);
    expect(await bad.text()).toContain('502 Bad Gateway');
  });

  it('drop: closes the connection without any answer, after delay_ms when given', async () => {
    const started = Date.now();
    const err = await chat('[[sim:drop,delay_ms=100]]').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect((await getStats()).inFlight).toBe(0);
  });

  it('empty: 200 with an empty body', async () => {
    const res = await chat('[[sim:empty]]', { stream: true });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it.each([
    [503, 'server_error', 'server_error'],
    [500, 'server_error', 'server_error'],
    [429, 'rate_limit_exceeded', 'rate_limit_error'],
  ])('status=%i answers in the provider error format, streamed or not', async (status, code, type) => {
    for (const stream of [false, true]) {
      const res = await chat(`[[sim:status=${status}]]`, { stream });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ error: { message: expect.any(String), type, param: null, code } });
    }
  });

  it('delay_ms waits before answering; words sets the length', async () => {
    const started = Date.now();
    const res = await chat('hi [[sim:delay_ms=300]] [[sim:words=4]]');
    const body = await readJson<ChatCompletion>(res);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(body.choices[0].message.content).toBe('Echo: hi lorem ipsum');
    expect(body.usage.completion_tokens).toBe(4);
  });

  it('piece_delay_ms spaces out the pieces of a stream', async () => {
    const started = Date.now();
    const { text } = await drain(await chat('[[sim:words=3,piece_delay_ms=40]]', { stream: true }));
    // 6 events (role, 3 words, finish, [DONE]) have 5 gaps.
    expect(text.match(/^data: /gm)).toHaveLength(6);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * 40 - 10);
  });

  it('counts requests in flight and in total, and resets', async () => {
    await fetch(`${base}/sim/stats/reset`, { method: 'POST' });
    const replies = await Promise.all([1, 2, 3].map(() => chat('[[sim:delay_ms=200]]').then((res) => readJson<ChatCompletion>(res))));
    expect(replies.every((reply) => reply.object === 'chat.completion')).toBe(true);
    expect(await getStats()).toEqual({ inFlight: 0, maxInFlight: 3, total: 3, lastAuthorization: 'Bearer gateway-' });
    const reset = await readJson<SimStatsSnapshot>(await fetch(`${base}/sim/stats/reset`, { method: 'POST' }));
    expect(reset).toEqual({ inFlight: 0, maxInFlight: 0, total: 0, lastAuthorization: null });
  });

  it('lets a request go out of flight when its client goes away mid-delay', async () => {
    const abort = new AbortController();
    const pending = chat('[[sim:delay_ms=5000]]', {}, abort.signal).catch((err: unknown) => err);
    expect((await eventually(getStats, (stats) => stats.inFlight > 0)).inFlight).toBe(1);
    abort.abort();
    await pending;
    expect((await eventually(getStats, (stats) => stats.inFlight === 0)).inFlight).toBe(0);
  });

  it('serves /healthz, and 404 in the provider format elsewhere, each with its own request id', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const missing = await fetch(`${base}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect((await readJson<ProviderErrorBody>(missing)).error).toMatchObject({ type: 'invalid_request_error', param: null });
    const ids = [health, missing].map((res) => res.headers.get('x-request-id'));
    expect(ids[0]).toMatch(/^prov-[0-9a-f]{24}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
