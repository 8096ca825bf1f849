import { randomBytes } from 'node:crypto';
import { GatewayUnderTest, readEvents, RunningStack, startGateway } from '@gw/test-stack';
import { OtlpReceiver, ReceivedSpan } from '@gw/testing';

const SERVER = 2;
const CLIENT = 3;

/**
 * One paid streamed request through the whole stack, traced (OTLP/HTTP JSON to a receiver in this
 * test): one trace holds the edge's request, its calls to auth-, quota- and billing-service (the
 * streamed calls too), their PostgreSQL and Redis calls and the provider call; the bill's delivery
 * from the outbox is a trace of its own linked to it; and every log line of the request, in every
 * service, carries the trace id and the request id.
 */
describe('traces across every hop, and log lines joined to them', () => {
  let gw: GatewayUnderTest;
  let receiver: OtlpReceiver;
  let stack: RunningStack;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    gw = await startGateway({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.httpEndpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'debug',
    });
    stack = gw.stack;
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
    await receiver?.stop();
  }, 60_000);

  it('follows a paid streamed request from the edge through every service, the provider and the stores', async () => {
    const { accountId } = (await stack.ctl('account', 'create', '--balance', '5')).json as { accountId: string };
    const { key } = (await stack.ctl('key', 'create', '--account', accountId)).json as { key: string };
    // A caller's own ids: a request id shaped like a trace id, and a traceparent. Neither becomes ours.
    const requestId = randomBytes(16).toString('hex');
    const callerTraceId = randomBytes(16).toString('hex');
    const res = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'x-request-id': requestId,
        traceparent: `00-${callerTraceId}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'trace me' }], stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    await readEvents(res);

    const edgeSpan = await receiver.waitFor(
      (spans) => spans.find((s) => s.service === 'edge' && s.kind === SERVER && s.attributes['gateway.request_id'] === requestId),
      "the edge's span of the request",
    );
    const traceId = edgeSpan.traceId;
    expect(traceId).not.toBe(callerTraceId);
    expect(traceId).not.toBe(requestId);
    expect(edgeSpan.parentSpanId).toBe('');

    const delivery = await receiver.waitFor(
      (spans) =>
        spans.find(
          (s) => s.service === 'quota-service' && s.name === 'settle outbox delivery' && s.links.some((l) => l.traceId === traceId),
        ),
      'the delivery of the bill, linked to the request',
    );
    await receiver.waitFor(
      (spans) => spans.find((s) => s.traceId === delivery.traceId && s.service === 'billing-service' && s.kind === SERVER),
      "billing-service's settle",
    );
    const inTrace = await receiver.waitFor((spans) => {
      const found = spans.filter((s) => s.traceId === traceId);
      return ['auth-service', 'quota-service', 'billing-service', 'provider-sim'].every((service) =>
        found.some((s) => s.service === service),
      )
        ? found
        : undefined;
    }, 'a span of every service in the trace');

    const named = (service: string, name: string, kind: number) =>
      inTrace.filter((s) => s.service === service && s.name === name && s.kind === kind);
    expect(named('edge', 'quota.v1.Quota/Admit', CLIENT)).toHaveLength(1);
    expect(named('quota-service', 'quota.v1.Quota/Admit', SERVER)).toHaveLength(1);
    expect(named('quota-service', 'quota.v1.Quota/FinishRequest', SERVER)).toHaveLength(1);
    expect(named('auth-service', 'grpc.auth.v1.Auth/Authenticate', SERVER)).toHaveLength(1);
    // The account's first paid request finds no credit line yet: quota-service's Admit asks billing-service for one
    // (ExtendCreditLines; with no other extension on the wire it goes at once, alone, inside the Admit).
    const extension = named('billing-service', 'grpc.billing.v1.Billing/ExtendCreditLines', SERVER);
    expect(extension).toHaveLength(1);

    const spanById = new Map(inTrace.map((s) => [s.spanId, s]));
    const parentOf = (span: ReceivedSpan) => spanById.get(span.parentSpanId);
    // The server side of each hop is the child of its caller's client span: the edge's, or for the
    // line, quota-service's, inside its Admit.
    for (const server of inTrace.filter((s) => s.kind === SERVER && s.service !== 'edge' && s !== extension[0])) {
      expect(parentOf(server)).toMatchObject({ service: 'edge', kind: CLIENT });
    }
    const lineCall = parentOf(extension[0]);
    expect(lineCall).toMatchObject({ service: 'quota-service', kind: CLIENT });
    expect(lineCall && parentOf(lineCall)).toMatchObject({ service: 'quota-service', name: 'quota.v1.Quota/Admit', kind: SERVER });
    const providerCall = inTrace.find(
      (s) => s.service === 'edge' && s.kind === CLIENT && String(s.attributes['url.full'] ?? '').startsWith(stack.providerUrl),
    );
    expect(providerCall).toBeDefined();
    // The stores, inside the handlers that use them.
    const store = (s: ReceivedSpan) => s.attributes['db.system.name'] ?? s.attributes['db.system'];
    const redisCall = inTrace.find((s) => s.service === 'quota-service' && store(s) === 'redis');
    const postgresCall = inTrace.find((s) => s.service === 'billing-service' && store(s) === 'postgresql');
    expect(redisCall && parentOf(redisCall)).toMatchObject({ service: 'quota-service', kind: SERVER });
    expect(postgresCall && parentOf(postgresCall)).toMatchObject({ service: 'billing-service' });

    // Every log line of the request, in every service, carries its trace id; the request's id is the key.
    const lines = stack.logs.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const ofRequest = lines.filter((line) => line.requestId === requestId);
    expect(new Set(ofRequest.map((line) => line.service))).toEqual(
      new Set(['edge', 'auth-service', 'quota-service', 'billing-service', 'provider-sim']),
    );
    expect(ofRequest.filter((line) => line.traceId !== traceId)).toEqual([]);
    expect(lines.filter((line) => line.traceId === traceId && line.requestId !== requestId)).toEqual([]);
  }, 60_000);
});
