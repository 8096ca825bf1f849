import OpenAI from 'openai';
import { errorOf, eventually, GatewayUnderTest, readEvents, startGateway } from '@gw/test-stack';

const MODEL = 'vendor-v4-flash';
const ask = (text: string) => [{ role: 'user' as const, content: text }];
/**
 * The prompt tokens the edge bills a reply that broke off without usage with: its own tokenizer's
 * estimate of these prompts (apps/edge/src/domain/prompt-estimate.ts), worked out once.
 */
const EDGE_PROMPT_ESTIMATE: Record<string, number> = {
  'a b c d e f [[sim:break_after=4,piece_delay_ms=400]]': 27,
  'hello [[sim:break_after=40]]': 15,
};
const edgePromptEstimate = (text: string) => EDGE_PROMPT_ESTIMATE[text];
/** provider-sim counts a prompt as a quarter of the characters of the messages' JSON, rounded up. */
const simPromptTokens = (messages: unknown[]) => Math.ceil(JSON.stringify(messages).length / 4);
/** vendor-v4-flash is seeded at 1 LYD per million prompt tokens and 4 per million completion tokens. */
const costMicro = (prompt: number, completion: number) => Math.ceil(prompt + completion * 4);

describe('replies that break off, go silent or are abandoned: what the caller sees and what is billed (docs/api.md#billing-rules)', () => {
  let gw: GatewayUnderTest;

  beforeAll(async () => {
    gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '10000' });
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  const stream = (key: string, text: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
    fetch(`${gw.stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: ask(text), stream: true, ...extra }),
      signal,
    });

  /** Waits until the account's usage shows `tokens` in all, then checks the balance went down by `cost`. */
  async function expectBilled(
    account: { accountId: string; key: string },
    tokens: number,
    balanceBefore: number,
    cost: number,
  ): Promise<void> {
    expect(await gw.billedTokens(account, (total) => total >= tokens)).toBe(tokens);
    expect(await gw.settledBalanceMicro(account.accountId, balanceBefore - cost)).toBe(balanceBefore - cost);
  }

  it('bills a complete stream by the usage the provider reported, though the caller did not ask for it', async () => {
    const account = await gw.account('5');
    const { events } = await readEvents(await stream(account.key, 'one two three'));
    expect(events.some((event) => event.includes('"usage"'))).toBe(false);
    const prompt = simPromptTokens(ask('one two three'));
    await expectBilled(account, prompt + 4, 5_000_000, costMicro(prompt, 4));
    expect(await gw.endReasons(account.accountId)).toEqual(['complete']);
  });

  it('streamed UPSTREAM_INTERRUPTED: one error event, no [DONE]; the openai client raises', async () => {
    const { key } = await gw.account('5');
    const { events, error } = await readEvents(await stream(key, 'a b c d e [[sim:break_after=3]]'));
    expect(error).toBeUndefined();
    expect(events).toHaveLength(4);
    expect(events).not.toContain('[DONE]');
    expect(JSON.parse(events[3])).toEqual({
      error: { code: 'UPSTREAM_INTERRUPTED', type: 'server_error', param: null, message: expect.any(String) },
    });

    const client = new OpenAI({ baseURL: gw.stack.baseUrl, apiKey: key, maxRetries: 0 });
    const chunks: unknown[] = [];
    const iterate = async () => {
      for await (const chunk of await client.chat.completions.create({
        model: MODEL,
        messages: ask('a b c d e [[sim:break_after=3]]'),
        stream: true,
      }))
        chunks.push(chunk);
    };
    const err = await iterate().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ code: 'UPSTREAM_INTERRUPTED', type: 'server_error' });
    expect(chunks).toHaveLength(3);
  });

  it('bills a broken stream by the reported usage when the usage chunk came before the break', async () => {
    const account = await gw.account('5');
    // role, Echo: a b c, finish, usage: the 7th chunk is the usage, then the connection breaks.
    const text = 'a b c [[sim:break_after=7]]';
    const { events } = await readEvents(await stream(account.key, text));
    expect(JSON.parse(events[events.length - 1]).error.code).toBe('UPSTREAM_INTERRUPTED');
    const prompt = simPromptTokens(ask(text));
    await expectBilled(account, prompt + 4, 5_000_000, costMicro(prompt, 4));
    expect(await gw.endReasons(account.accountId)).toEqual(['provider-broke-off']);
  });

  it('estimates a broken stream without usage: prompt estimate plus 20 tokens a second', async () => {
    const account = await gw.account('5');
    const text = 'a b c d e f [[sim:break_after=4,piece_delay_ms=400]]';
    const started = Date.now();
    const { events } = await readEvents(await stream(account.key, text));
    const seconds = (Date.now() - started) / 1000;
    expect(JSON.parse(events[events.length - 1]).error.code).toBe('UPSTREAM_INTERRUPTED');
    const prompt = edgePromptEstimate(text);
    const completion = (await gw.billedTokens(account, (total) => total > 0)) - prompt;
    // 3 gaps of 0.4 s ran before the break: at least 1.2 s, so at least 24 tokens.
    expect(completion).toBeGreaterThanOrEqual(24);
    expect(completion).toBeLessThanOrEqual(Math.ceil(seconds * 20) + 1);
    const expected = 5_000_000 - costMicro(prompt, completion);
    expect(await gw.settledBalanceMicro(account.accountId, expected)).toBe(expected);
  });

  it('whole UPSTREAM_INTERRUPTED: 502; part of the reply had come, so the prompt estimate is billed', async () => {
    const account = await gw.account('5');
    const text = 'hello [[sim:break_after=40]]';
    const res = await gw.chat(account.key, { model: MODEL, messages: ask(text) });
    expect(await errorOf(res)).toMatchObject({ status: 502, code: 'UPSTREAM_INTERRUPTED', type: 'server_error' });
    const prompt = edgePromptEstimate(text);
    const completion = (await gw.billedTokens(account, (total) => total > 0)) - prompt;
    expect(completion).toBeGreaterThanOrEqual(1);
    expect(completion).toBeLessThanOrEqual(20);
    // Usage counts the request at its finish; its ledger row comes after, through the outbox.
    expect(
      await eventually(
        () => gw.endReasons(account.accountId),
        (reasons) => reasons.length > 0,
      ),
    ).toEqual(['provider-broke-off']);
  });

  it('keeps reading and billing streams the caller left, and keeps their places until the provider finishes', async () => {
    const account = await gw.account('5');
    const { key } = account;
    // 10 events 250 ms apart: each provider reply runs about 2.25 s after its caller left.
    const text = 'stay [[sim:words=6,piece_delay_ms=250]]';
    const leave = async () => {
      const abort = new AbortController();
      const res = await stream(key, text, {}, abort.signal);
      await (res.body as ReadableStream<Uint8Array>).getReader().read();
      abort.abort();
    };
    await Promise.all([leave(), leave(), leave()]);
    const refused = await gw.chat(key, { model: MODEL, messages: ask('me too') });
    expect(await errorOf(refused)).toMatchObject({ status: 429, code: 'concurrency_limit' });
    expect((await gw.simStats()).inFlight).toBeGreaterThanOrEqual(3);

    const prompt = simPromptTokens(ask(text));
    await expectBilled(account, 3 * (prompt + 6), 5_000_000, 3 * costMicro(prompt, 6));
    expect(await gw.endReasons(account.accountId)).toEqual(['caller-left', 'caller-left', 'caller-left']);
    const after = await gw.chat(key, { model: MODEL, messages: ask('now') });
    expect(after.status).toBe(200);
  });
});
