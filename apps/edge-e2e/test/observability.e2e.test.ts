import {
  awayFromMinuteEnd,
  errorOf,
  GatewayUnderTest,
  MetricsScrape,
  readEvents,
  scrapeMetrics,
  startGateway,
  eventually,
  WAITS_FOR_MINUTE_MS,
} from '@gw/test-stack';

// Tests here wait for a minute's end (awayFromMinuteEnd), up to 30 s, before their own work.
jest.setTimeout(WAITS_FOR_MINUTE_MS);

const FLASH = 'vendor-v4-flash';
const ask = (text: string) => [{ role: 'user' as const, content: text }];
const APPS = ['edge', 'auth-service', 'quota-service', 'billing-service'] as const;
type App = (typeof APPS)[number];
const CHAT = { route: '/v1/chat/completions' };
const OVERHEAD = 'x-gateway-overhead-ms';

/** The request log line of the edge: the one with this x-request-id. */
interface RequestLine {
  service: string;
  msg: string;
  requestId: string;
  [field: string]: unknown;
}

describe('metrics, the request log line and the overhead header', () => {
  let gw: GatewayUnderTest;

  beforeAll(async () => {
    gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '3', PROVIDER_SILENCE_MS: '1000', FREE_PEAK_HOURS_UTC: '0-0', SETTLE_POLL_MS: '50' });
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  const scrapeAll = async (): Promise<Record<App, MetricsScrape>> => {
    const scrapes = await Promise.all(APPS.map((app) => scrapeMetrics(gw.stack.metricsUrls[app])));
    return Object.fromEntries(APPS.map((app, i) => [app, scrapes[i]])) as Record<App, MetricsScrape>;
  };

  const chat = (key: string | undefined, text: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    gw.chat(key, { model: FLASH, messages: ask(text), ...extra }, headers);

  /** The edge's log lines for one x-request-id, once there is one. */
  async function requestLines(requestId: string): Promise<RequestLine[]> {
    const lines = () =>
      gw.stack.logs
        .filter((line) => line.startsWith('{') && line.includes(`"requestId":"${requestId}"`))
        .map((line) => JSON.parse(line) as RequestLine)
        .filter((line) => line.service === 'edge' && line.msg === 'request');
    await eventually(async () => lines().length > 0);
    return lines();
  }

  it('counts traffic in the /metrics of the edge, auth-, quota- and billing-service', async () => {
    await awayFromMinuteEnd(20);
    const paid = await gw.account('5');
    const free = await gw.account('0');
    const before = await scrapeAll();

    expect((await chat(paid.key, 'one two three')).status).toBe(200);
    const streamed = await readEvents(await chat(paid.key, 'four five', { stream: true }));
    expect(streamed.events[streamed.events.length - 1]).toBe('[DONE]');
    // Broken off without usage: billed with an estimate.
    const broken = await readEvents(await chat(paid.key, 'a b c d e f [[sim:break_after=4]]', { stream: true }));
    expect(JSON.parse(broken.events[broken.events.length - 1]).error.code).toBe('UPSTREAM_INTERRUPTED');
    expect(await errorOf(await chat(paid.key, 'over the minute'))).toMatchObject({ status: 429, code: 'rate_limit_error' });
    expect((await chat(free.key, 'free please')).status).toBe(200);
    expect(await errorOf(await gw.chat(free.key, { model: 'vendor-v4-pro', messages: ask('pro for free') }))).toMatchObject({
      status: 402,
      code: 'FREE_TIER_MODEL',
    });

    // Three paid bills and one free one land in billing-service through quota-service's outbox.
    const landed = async () => {
      const billing = await scrapeMetrics(gw.stack.metricsUrls['billing-service']);
      const billed = (payment: string) =>
        billing.value('billing_settles_total', { payment, outcome: 'billed' }) -
        before['billing-service'].value('billing_settles_total', { payment, outcome: 'billed' });
      return billed('paid') === 3 && billed('free') === 1;
    };
    await eventually(landed);
    const after = await scrapeAll();
    const moved = (app: App, name: string, labels: Record<string, string> = {}) =>
      after[app].value(name, labels) - before[app].value(name, labels);

    expect(moved('edge', 'edge_requests_total', { ...CHAT, status: '200', code: 'ok' })).toBe(3);
    expect(moved('edge', 'edge_requests_total', { ...CHAT, status: '200', code: 'UPSTREAM_INTERRUPTED' })).toBe(1);
    expect(moved('edge', 'edge_requests_total', { ...CHAT, status: '429', code: 'rate_limit_error' })).toBe(1);
    expect(moved('edge', 'edge_requests_total', { ...CHAT, status: '402', code: 'FREE_TIER_MODEL' })).toBe(1);
    expect(moved('edge', 'edge_request_duration_seconds_count', CHAT)).toBe(6);
    expect(moved('edge', 'edge_provider_ttfb_seconds_count', { stream: 'true' })).toBe(2);
    expect(moved('edge', 'edge_provider_duration_seconds_count')).toBe(4);
    expect(moved('edge', 'edge_limit_refusals_total', { kind: 'rate_limit_error' })).toBe(1);
    expect(moved('edge', 'edge_limit_refusals_total', { kind: 'FREE_TIER_MODEL' })).toBe(1);
    expect(after.edge.value('edge_open_streams')).toBe(0);
    expect(moved('edge', 'edge_settlements_total', { outcome: 'ok' })).toBe(4);
    expect(moved('edge', 'edge_estimated_charges_total', { payment: 'paid' })).toBe(1);
    // One Admit per chat request whose body was accepted; none needed CountRequest.
    expect(moved('edge', 'edge_grpc_client_seconds_count', { method: 'Admit', code: 'OK' })).toBe(6);
    expect(moved('edge', 'edge_grpc_client_seconds_count', { method: 'CountRequest', code: 'OK' })).toBe(0);
    expect(moved('edge', 'edge_grpc_client_seconds_count', { method: 'FinishRequest', code: 'OK' })).toBe(4);

    // Two keys, each asked about once: the key cache answered the other four requests.
    expect(moved('auth-service', 'grpc_server_handling_seconds_count', { method: 'Authenticate', code: 'OK' })).toBe(2);

    expect(moved('quota-service', 'quota_refusals_total', { kind: 'per_minute' })).toBe(1);
    expect(moved('quota-service', 'quota_refusals_total', { kind: 'free_model' })).toBe(1);
    // Three paid bills and one free one, applied by billing-service in batches (ApplyBills).
    expect(moved('quota-service', 'quota_outbox_deliveries_total', { kind: 'bill', outcome: 'delivered' })).toBe(4);
    expect(moved('quota-service', 'grpc_server_handling_seconds_count', { method: 'FinishRequest', code: 'OK' })).toBe(4);

    const charged = 5_000_000 - (await gw.balanceMicro(paid.accountId));
    expect(charged).toBeGreaterThan(0);
    expect(moved('billing-service', 'billing_charged_micro_lyd_total')).toBe(charged);
    expect(moved('billing-service', 'billing_estimated_settles_total', { payment: 'paid' })).toBe(1);
    expect(moved('billing-service', 'billing_settles_total', { outcome: 'repeated' })).toBe(0);

    // By model (the catalog's names; the body, and with it the model, is checked before the request is counted), tokens and money by model.
    expect(moved('edge', 'edge_chat_requests_total', { model: FLASH, code: 'ok' })).toBe(3);
    expect(moved('edge', 'edge_chat_requests_total', { model: FLASH, code: 'UPSTREAM_INTERRUPTED' })).toBe(1);
    expect(moved('edge', 'edge_chat_requests_total', { model: FLASH, code: 'rate_limit_error' })).toBe(1);
    expect(moved('edge', 'edge_chat_requests_total', { model: 'vendor-v4-pro', code: 'FREE_TIER_MODEL' })).toBe(1);
    expect(moved('edge', 'edge_provider_ttfb_seconds_count', { model: FLASH })).toBe(4);
    for (const kind of ['prompt', 'completion']) {
      expect(moved('billing-service', 'billing_tokens_total', { model: FLASH, payment: 'paid', kind })).toBeGreaterThan(0);
      expect(moved('billing-service', 'billing_tokens_total', { model: FLASH, payment: 'free', kind })).toBeGreaterThan(0);
    }
    expect(moved('billing-service', 'billing_charged_lyd_total', { model: FLASH })).toBeCloseTo(charged / 1_000_000, 9);
    // Nothing waits: every bill delivered, no hold left, the provider's breaker closed.
    expect(after['quota-service'].value('quota_settle_outbox_backlog')).toBe(0);
    expect(after['quota-service'].value('quota_settle_outbox_oldest_age_seconds')).toBe(0);
    expect(after['billing-service'].value('billing_holds_open')).toBe(0);
    expect(after.edge.value('edge_provider_breaker_state', { state: 'closed' })).toBe(1);
    expect(after.edge.value('edge_provider_breaker_state', { state: 'open' })).toBe(0);
  });

  it("labels by model only with the catalog's models: a request naming another is counted under none", async () => {
    await awayFromMinuteEnd(5);
    const { key } = await gw.account('5');
    const before = await scrapeMetrics(gw.stack.metricsUrls.edge);
    expect(await errorOf(await gw.chat(key, { model: 'made-up-model-7', messages: ask('hi') }))).toMatchObject({ code: 'MODEL_NOT_FOUND' });
    await eventually(
      async () =>
        (await scrapeMetrics(gw.stack.metricsUrls.edge)).value('edge_chat_requests_total', { model: 'none', code: 'MODEL_NOT_FOUND' }) >
        before.value('edge_chat_requests_total', { model: 'none', code: 'MODEL_NOT_FOUND' }),
    );
    expect(await (await fetch(gw.stack.metricsUrls.edge)).text()).not.toContain('made-up-model-7');
  });

  it('writes one log line per request, when it is over, with what is known of it', async () => {
    const { accountId, key } = await gw.account('5');
    await chat(key, 'hello there', {}, { 'x-request-id': 'obs-whole' });
    const [whole, ...more] = await requestLines('obs-whole');
    expect(more).toHaveLength(0);
    expect(whole).toEqual({
      time: expect.any(String),
      level: 'info',
      service: 'edge',
      msg: 'request',
      requestId: 'obs-whole',
      method: 'POST',
      path: '/v1/chat/completions',
      route: '/v1/chat/completions',
      status: 200,
      code: 'ok',
      accountId,
      model: FLASH,
      stream: false,
      payment: 'paid',
      billingId: expect.any(String),
      // provider-sim: a quarter of the messages' JSON characters; "Echo: hello there" is 3 words.
      promptTokens: Math.ceil(JSON.stringify(ask('hello there')).length / 4),
      completionTokens: 3,
      usageEstimated: false,
      durationMs: expect.any(Number),
      overheadMs: expect.any(Number),
      providerTtfbMs: expect.any(Number),
      providerMs: expect.any(Number),
    });
    expect(whole.providerMs as number).toBeLessThanOrEqual(whole.durationMs as number);

    // A stream the caller leaves: the line waits until the provider's reply has been read and billed.
    const res = await gw.chat(
      key,
      { model: FLASH, messages: ask('stay [[sim:words=6,piece_delay_ms=150]]'), stream: true },
      { 'x-request-id': 'obs-left' },
    );
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    const [left, ...again] = await requestLines('obs-left');
    expect(again).toHaveLength(0);
    expect(left).toMatchObject({
      status: 200,
      code: 'caller_gone',
      stream: true,
      payment: 'paid',
      completionTokens: 6,
      usageEstimated: false,
    });
    expect(left.providerMs as number).toBeGreaterThan(left.durationMs as number);

    // Refused before the key is known: no account, no model.
    await chat(undefined, 'no key', {}, { 'x-request-id': 'obs-nokey' });
    const [nokey] = await requestLines('obs-nokey');
    expect(nokey).toMatchObject({ status: 401, code: 'MISSING_API_KEY' });
    expect(nokey.accountId).toBeUndefined();
    expect(nokey.providerMs).toBeUndefined();
  });

  it('never logs a key or message content', async () => {
    const { key } = await gw.account('5');
    const secretWords = 'zebra quartz marmalade';
    expect((await chat(key, secretWords, {}, { 'x-request-id': 'obs-secret' })).status).toBe(200);
    await chat(`${key}0`, secretWords, {}, { 'x-request-id': 'obs-wrong-key' });
    await requestLines('obs-secret');
    await requestLines('obs-wrong-key');
    const logs = gw.stack.logs.join('\n');
    expect(logs).not.toContain(key.slice('sk-shfr-'.length));
    for (const word of secretWords.split(' ')) expect(logs).not.toContain(word);
  });

  it('sends X-Gateway-Overhead-Ms on chat replies and refusals, but not on the front proxy pages', async () => {
    const first = await gw.account('5');
    const second = await gw.account('5');
    const overheadOf = (res: Response) => {
      const value = res.headers.get(OVERHEAD);
      expect(value).toMatch(/^\d+\.\d{3}$/);
      return Number(value);
    };

    const whole = await chat(first.key, 'hi');
    expect(whole.status).toBe(200);
    expect(overheadOf(whole)).toBeGreaterThanOrEqual(0);
    const streamed = await chat(first.key, 'hi', { stream: true });
    expect(overheadOf(streamed)).toBeGreaterThanOrEqual(0);
    await readEvents(streamed);
    const providerRefusal = await chat(first.key, 'hi [[sim:status=400]]');
    expect(providerRefusal.status).toBe(400);
    expect(overheadOf(providerRefusal)).toBeGreaterThanOrEqual(0);
    expect(overheadOf(await chat(undefined, 'hi'))).toBeGreaterThanOrEqual(0);

    // The provider's 400 ms are not the gateway's: an overhead that counted them would be 400 or more.
    const slow = await chat(second.key, 'hi [[sim:delay_ms=400]]');
    expect(slow.status).toBe(200);
    expect(overheadOf(slow)).toBeLessThan(300);

    for (const page of [
      await chat(second.key, 'hi [[sim:delay_ms=1500]]'),
      await chat(second.key, 'x'.repeat(2 * 1024 * 1024 + 1)),
      await chat(second.key, 'hi', {}, { 'user-agent': 'Python-urllib/3.12' }),
    ]) {
      expect([504, 413, 403]).toContain(page.status);
      expect(page.headers.get('content-type')).not.toContain('application/json');
      expect(page.headers.get(OVERHEAD)).toBeNull();
      expect(page.headers.get('x-request-id')).toBeNull();
    }
    expect((await fetch(`${gw.stack.baseUrl}/models`)).headers.get(OVERHEAD)).toBeNull();
  });
});
