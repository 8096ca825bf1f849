import { status } from '@grpc/grpc-js';
import { healthV1, quotaV1 } from '@gw/contracts';
import { testTlsDir } from '@gw/testing';
import {
  clientChain,
  createLogger,
  GrpcSecurity,
  RpcClient,
  rpcClient,
  RpcError,
  RunningGrpcServer,
  startGrpcServer,
  RpcHandlers,
  rpcService,
  serverChain,
} from '../src';
import { CLIENT_KEEPALIVE_MS, CONNECTION_AGE_GRACE_MS, MAX_CONNECTION_AGE_LIMIT_MS } from '../src/grpc/grpc-channel';

const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: 2000, chain: clientChain() };

describe('gRPC server: the server chain is the one place errors become statuses; health', () => {
  let server: RunningGrpcServer;
  let client: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  let chatClient: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  const logged: string[] = [];
  const released: number[] = [];

  beforeAll(async () => {
    const logger = createLogger('test', 'info', (line) => logged.push(line));
    const handlers = {
      async countRequest(req: quotaV1.CountRequestRequest) {
        if (req.accountId === 'refuse') throw new RpcError(status.FAILED_PRECONDITION, 'refused on purpose');
        if (req.accountId === 'crash') throw new Error('secret detail: database password is hunter2');
        return { allowed: true, limit: 1, remaining: 0, resetUnixSeconds: 60, retryAfterSeconds: 0, nowUnixMs: 0 };
      },
      async releasePlace(req: quotaV1.ReleasePlaceRequest) {
        released.push(req.promptTokens);
        return { released: true };
      },
    } as unknown as RpcHandlers<quotaV1.QuotaService>;
    const settings = { host: '127.0.0.1', port: 0, metricsPort: 0, security: mtls('quota-service'), maxConnectionAgeMs: 60_000 };
    server = await startGrpcServer(settings, [rpcService(quotaV1.QuotaService, handlers, serverChain(logger))], logger);
    client = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${server.port}`, mtls('edge'), 'quota-service', SETTINGS);
    chatClient = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${server.port}`, mtls('chat-product'), 'quota-service', SETTINGS);
  });

  afterAll(async () => {
    client.close();
    chatClient.close();
    await server.stop(1000);
  });

  const count = (accountId: string) => client.countRequest({ accountId });

  it('answers normally', async () => {
    expect(await count('ok')).toMatchObject({ allowed: true, limit: 1 });
  });

  it('keeps the code and message of an RpcError', async () => {
    await expect(count('refuse')).rejects.toMatchObject({ code: status.FAILED_PRECONDITION, details: 'refused on purpose' });
  });

  it('answers INTERNAL without the text of any other error, and logs it', async () => {
    await expect(count('crash')).rejects.toMatchObject({ code: status.INTERNAL, details: 'internal error' });
    expect(logged.some((l) => l.includes('hunter2') && l.includes('"method":"CountRequest"'))).toBe(true);
  });

  it('answers INVALID_ARGUMENT, not INTERNAL, for an int64 the generated decoder refuses (past 2^53 - 1), before any handler sees it', async () => {
    const release = (promptTokens: number) =>
      chatClient.releasePlace({ accountId: 'a', requestId: 'r', promptTokens, completionTokens: 0 });
    expect(await release(2 ** 52)).toEqual({ released: true });
    await expect(release(2 ** 62)).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining('could not be decoded'),
    });
    await expect(release(Number.MAX_SAFE_INTEGER + 1)).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(await release(Number.MAX_SAFE_INTEGER)).toEqual({ released: true });
    expect(released).toEqual([2 ** 52, Number.MAX_SAFE_INTEGER]);
    const text = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
    expect(text).toContain('grpc_server_undecodable_requests_total{method="/quota.v1.Quota/ReleasePlace"} 2');
  });

  it('counts every call by method and status code on its metrics port', async () => {
    await count('ok').catch(() => undefined);
    const text = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
    expect(text).toMatch(/grpc_server_handling_seconds_count\{method="CountRequest",code="OK"\} [1-9]/);
    expect(text).toMatch(/grpc_server_handling_seconds_count\{method="CountRequest",code="FAILED_PRECONDITION"\} [1-9]/);
    expect(text).toMatch(/grpc_server_handling_seconds_count\{method="CountRequest",code="INTERNAL"\} [1-9]/);
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('answers /healthz and /readyz on the admin port, for probes that cannot speak TLS', async () => {
    const admin = (path: string) => fetch(`http://127.0.0.1:${server.metricsPort}${path}`).then((r) => r.status);
    expect([await admin('/healthz'), await admin('/readyz'), await admin('/other')]).toEqual([200, 200, 404]);
  });

  it('turns health NOT_SERVING and /readyz 503 when asked, for probes to see before the drain', async () => {
    server.setNotServing();
    const health = rpcClient(healthV1.HealthClient, `127.0.0.1:${server.port}`, mtls('ctl'), 'quota-service', SETTINGS);
    try {
      const res = await health.check({ service: 'quota.v1.Quota' });
      expect(res.status).toBe(healthV1.HealthCheckResponse_ServingStatus.NOT_SERVING);
      expect((await fetch(`http://127.0.0.1:${server.metricsPort}/readyz`)).status).toBe(503);
      expect((await fetch(`http://127.0.0.1:${server.metricsPort}/healthz`)).status).toBe(200);
    } finally {
      health.close();
    }
  });
});

describe('gRPC server: maximum connection age against the clients keepalive', () => {
  it("refuses a maximum age whose connections (age, +10% jitter, grace) would still drain at a client's first keepalive ping, which would cut their calls", async () => {
    const logger = createLogger('test', 'error', () => undefined);
    const settings = (maxConnectionAgeMs: number) => ({
      host: '127.0.0.1',
      port: 0,
      metricsPort: 0,
      security: mtls('quota-service'),
      maxConnectionAgeMs,
    });
    expect(MAX_CONNECTION_AGE_LIMIT_MS * 1.1 + CONNECTION_AGE_GRACE_MS).toBeLessThan(CLIENT_KEEPALIVE_MS);
    await expect(startGrpcServer(settings(MAX_CONNECTION_AGE_LIMIT_MS + 1), [], logger)).rejects.toThrow(
      /GRPC_MAX_CONNECTION_AGE_MS=.* is above/,
    );
    const server = await startGrpcServer(settings(MAX_CONNECTION_AGE_LIMIT_MS), [], logger);
    await server.stop(100);
  });
});
