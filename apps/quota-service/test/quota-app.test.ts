import { credentials, status } from '@grpc/grpc-js';
import { healthV1, quotaV1 } from '@gw/contracts';
import { createLogger, unaryCall } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 2000;

describe('quota-service over gRPC, Redis store', () => {
  let redis: TestRedis;
  let app: QuotaApp;
  let quota: quotaV1.QuotaClient;
  let health: healthV1.HealthClient;

  beforeAll(async () => {
    redis = await createTestRedis();
    const config = loadConfig({ QUOTA_METRICS_PORT: '0', QUOTA_PORT: '0', BIND_HOST: '127.0.0.1', GRPC_INSECURE: 'true', REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.keyPrefix });
    app = await startQuotaApp(config, silent);
    quota = new quotaV1.QuotaClient(`127.0.0.1:${app.port}`, credentials.createInsecure());
    health = new healthV1.HealthClient(`127.0.0.1:${app.port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    quota?.close();
    health?.close();
    await app?.stop();
    await redis?.cleanup();
  });

  it('serves every method of quota.v1.Quota', async () => {
    const accountId = `acct_${process.pid}_${Date.now()}`;
    const counted = await unaryCall(quota.countRequest.bind(quota), { accountId }, DEADLINE_MS);
    expect(counted).toMatchObject({ allowed: true, limit: 30, remaining: 29, retryAfterSeconds: 0 });
    expect(counted.resetUnixSeconds % 60).toBe(0);
    expect(counted.resetUnixSeconds).toBeGreaterThan(Date.now() / 1000 - 5);

    const placed = await unaryCall(quota.acquirePlace.bind(quota), { accountId, requestId: 'req-1', lease: undefined }, DEADLINE_MS);
    expect(placed).toEqual({ granted: true, limit: 3 });

    const released = await unaryCall(
      quota.releasePlace.bind(quota),
      { accountId, requestId: 'req-1', promptTokens: 1200, completionTokens: 34 },
      DEADLINE_MS,
    );
    expect(released).toEqual({ released: true });

    const usage = await unaryCall(quota.getUsage.bind(quota), { accountId }, DEADLINE_MS);
    expect(usage).toEqual({ todayTokens: 1234, totalTokens: 1234 });
  });

  it('answers INVALID_ARGUMENT for a request without an account', async () => {
    await expect(unaryCall(quota.getUsage.bind(quota), { accountId: '' }, DEADLINE_MS)).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('reports SERVING on grpc.health.v1 for the server and quota.v1.Quota', async () => {
    const SERVING = healthV1.HealthCheckResponse_ServingStatus.SERVING;
    for (const service of ['', 'quota.v1.Quota']) {
      expect(await unaryCall(health.check.bind(health), { service }, DEADLINE_MS)).toEqual({ status: SERVING });
    }
  });
});
