import OpenAI from 'openai';
import { errorOf, GatewayUnderTest, readEvents, startGateway } from '@gw/test-stack';

const MODEL = 'vendor-v4-flash';
const ask = (text: string) => [{ role: 'user' as const, content: text }];
/** provider-sim counts a prompt as a quarter of the characters of the messages' JSON, rounded up. */
const simPromptTokens = (messages: unknown[]) => Math.ceil(JSON.stringify(messages).length / 4);

describe('a silent or failing provider: 504 after silence, and the circuit breaker (docs/api.md#every-error-code)', () => {
  let gw: GatewayUnderTest;

  beforeAll(async () => {
    gw = await startGateway({
      RATE_LIMIT_PER_MINUTE: '10000',
      PROVIDER_SILENCE_MS: '1000',
      BREAKER_FAILURE_THRESHOLD: '3',
      BREAKER_COOLDOWN_MS: '1500',
    });
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  const expect504 = async (res: Response) => {
    expect(res.status).toBe(504);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-request-id')).toBeNull();
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(await res.text()).toContain('504');
  };

  it('answers 504 HTML when the provider is silent before the reply, whole or streamed, then still reads and bills it', async () => {
    const account = await gw.account('5');
    const whole = 'late [[sim:delay_ms=2000]]';
    const streamed = '[[sim:delay_ms=2000]]';
    await Promise.all([
      gw.chat(account.key, { model: MODEL, messages: ask(whole) }).then(expect504),
      gw.chat(account.key, { model: MODEL, messages: ask(streamed), stream: true }).then(expect504),
    ]);
    // Both replies come a second after their 504 and are billed as the provider reported them (docs/api.md#billing-rules).
    const expected = simPromptTokens(ask(whole)) + 2 + simPromptTokens(ask(streamed)) + 1;
    expect(await gw.billedTokens(account, (total) => total >= expected)).toBe(expected);
  });

  it('ends a stream that goes silent midway with the one stream error, and bills the reply that still comes', async () => {
    const account = await gw.account('5');
    // role at once, then finish, usage and [DONE] 1.5 s apart: silent for 1 s after the first piece.
    const text = '[[sim:words=0,piece_delay_ms=1500]]';
    const raw = async () => {
      const res = await gw.chat(account.key, { model: MODEL, messages: ask(text), stream: true });
      expect(res.status).toBe(200);
      const { events, error } = await readEvents(res);
      expect(error).toBeUndefined();
      expect(events).toHaveLength(2);
      expect(JSON.parse(events[0]).choices[0].delta.role).toBe('assistant');
      expect(JSON.parse(events[1])).toMatchObject({ error: { code: 'UPSTREAM_INTERRUPTED', type: 'server_error' } });
    };
    const client = new OpenAI({ baseURL: gw.stack.baseUrl, apiKey: account.key, maxRetries: 0 });
    const throughClient = async () => {
      const chunks: unknown[] = [];
      const iterate = async () => {
        for await (const chunk of await client.chat.completions.create({ model: MODEL, messages: ask(text), stream: true }))
          chunks.push(chunk);
      };
      await expect(iterate()).rejects.toMatchObject({ code: 'UPSTREAM_INTERRUPTED' });
      expect(chunks).toHaveLength(1);
    };
    await Promise.all([raw(), throughClient()]);
    const expected = 2 * simPromptTokens(ask(text));
    expect(await gw.billedTokens(account, (total) => total >= expected, 15_000)).toBe(expected);
  });

  it('opens the breaker after 3 provider failures in a row: UPSTREAM_DOWN without calling it, until a probe succeeds', async () => {
    const account = await gw.account('5');
    const { key } = account;
    await fetch(`${gw.simUrl}/sim/stats/reset`, { method: 'POST' });
    // A connection the provider drops unanswered, a 5xx, another drop: 3 failures in a row.
    const failures: [string, number, string][] = [
      ['[[sim:drop]]', 503, 'UPSTREAM_DOWN'],
      ['[[sim:status=500]]', 500, 'server_error'],
      ['[[sim:drop]]', 503, 'UPSTREAM_DOWN'],
    ];
    for (const [text, status, code] of failures) {
      expect(await errorOf(await gw.chat(key, { model: MODEL, messages: ask(text) }))).toMatchObject({ status, code });
    }
    for (const stream of [false, true]) {
      expect(await errorOf(await gw.chat(key, { model: MODEL, messages: ask('fine'), stream }))).toMatchObject({
        status: 503,
        code: 'UPSTREAM_DOWN',
        type: 'server_error',
      });
    }
    expect((await gw.simStats()).total).toBe(3);
    const breakerLog = (state: string) =>
      gw.stack.logs.some((line) => line.includes('provider circuit breaker') && line.includes(`"state":"${state}"`));
    expect(breakerLog('open')).toBe(true);

    // Time is the scenario: past the breaker's 1.5 s cool-down, the next request is its probe.
    await new Promise((r) => setTimeout(r, 1600));
    expect((await gw.chat(key, { model: MODEL, messages: ask('probe') })).status).toBe(200);
    expect((await gw.chat(key, { model: MODEL, messages: ask('after') })).status).toBe(200);
    expect(breakerLog('closed')).toBe(true);
    // Only the two successful requests cost anything.
    const expected = simPromptTokens(ask('probe')) + 2 + simPromptTokens(ask('after')) + 2;
    expect(await gw.billedTokens(account, (total) => total >= expected)).toBe(expected);
  });
});
