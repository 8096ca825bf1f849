import { status } from '@grpc/grpc-js';
import { healthV1, quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 2000;
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

describe('quota-service over gRPC, Redis store', () => {
  let redis: TestRedis;
  let app: QuotaApp;
  let quota: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  let health: RpcClient<healthV1.HealthClient, healthV1.HealthService>;

  beforeAll(async () => {
    redis = await createTestRedis();
    const config = loadConfig({
      QUOTA_METRICS_PORT: '0',
      QUOTA_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
    });
    app = await startQuotaApp(config, silent);
    quota = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, INSECURE, 'quota-service', SETTINGS);
    health = rpcClient(healthV1.HealthClient, `127.0.0.1:${app.port}`, INSECURE, 'quota-service', SETTINGS);
  });

  afterAll(async () => {
    quota?.close();
    health?.close();
    await app?.stop();
    await redis?.cleanup();
  });

  it('serves every method of quota.v1.Quota', async () => {
    const accountId = `acct_${process.pid}_${Date.now()}`;
    const counted = await quota.countRequest({ accountId });
    expect(counted).toMatchObject({ allowed: true, limit: 30, remaining: 29, retryAfterSeconds: 0 });
    expect(counted.resetUnixSeconds % 60).toBe(0);
    expect(counted.resetUnixSeconds).toBeGreaterThan(Date.now() / 1000 - 5);
    // Redis's clock when it counted travels with the answer: a time inside the minute that ends at reset.
    expect(Math.floor(counted.nowUnixMs / 60_000) + 1).toBe(counted.resetUnixSeconds / 60);

    const placed = await quota.acquirePlace({ accountId, requestId: 'req-1', lease: undefined });
    expect(placed).toEqual({ granted: true, limit: 3 });

    const released = await quota.releasePlace({ accountId, requestId: 'req-1', promptTokens: 1200, completionTokens: 34 });
    expect(released).toEqual({ released: true });

    const usage = await quota.getUsage({ accountId });
    expect(usage).toEqual({ todayTokens: 1234, totalTokens: 1234 });
  });

  it('answers INVALID_ARGUMENT for a request without an account', async () => {
    await expect(quota.getUsage({ accountId: '' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  it('reports SERVING on grpc.health.v1 for the server and quota.v1.Quota', async () => {
    const SERVING = healthV1.HealthCheckResponse_ServingStatus.SERVING;
    for (const service of ['', 'quota.v1.Quota']) {
      expect(await health.check({ service })).toEqual({ status: SERVING });
    }
  });
});
