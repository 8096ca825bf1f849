import { healthV1, quotaV1 } from '@gw/contracts';
import { CallStreamClient, clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { loadConfig } from '../../src/config';
import { QuotaApp, startQuotaApp } from '../../src/quota-app';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 2000;
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

describe("quota-service over gRPC, Redis store: the older release's edge calls", () => {
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

  it('starts a lease with each place it gives, and leaves none for a place it refuses (EdgeCalls, as the edge calls it)', async () => {
    const accountId = `acct_${process.pid}_${Date.now()}_leases`;
    const edge = new CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>(() => quota.streams.edgeCalls(), {
      streams: 1,
      rotateMs: 60_000,
    });
    const lease = (requestId: string): quotaV1.Lease => ({
      accountId,
      requestId,
      model: 'vendor-v4-flash',
      payment: quotaV1.Payment.PAYMENT_PAID,
      promptTokens: 10,
      completionTokens: 0,
    });
    const place = (requestId: string) =>
      edge.call({ $case: 'acquirePlace', value: { accountId, requestId, lease: lease(requestId) } }, DEADLINE_MS);
    try {
      expect(await edge.call({ $case: 'countRequest', value: { accountId } }, DEADLINE_MS)).toMatchObject({
        $case: 'countRequest',
        value: { allowed: true, remaining: 29 },
      });
      const answers = await Promise.all(['p1', 'p2', 'p3', 'p4'].map(place));
      expect(answers.map((a) => a?.$case === 'acquirePlace' && a.value.granted)).toEqual([true, true, true, false]);
      const renewed = await quota.renewLeases({ leases: ['p1', 'p2', 'p3', 'p4'].map(lease) });
      expect(renewed.unknownRequestIds).toEqual(['p4']);
      const finish = {
        accountId,
        requestId: 'p1',
        model: 'vendor-v4-flash',
        payment: quotaV1.Payment.PAYMENT_PAID,
        promptTokens: 10,
        completionTokens: 5,
        usageEstimated: false,
      };
      expect(await edge.call({ $case: 'finishRequest', value: finish }, DEADLINE_MS)).toEqual({
        $case: 'finishRequest',
        value: { released: true, repeated: false },
      });
      expect((await quota.renewLeases({ leases: [lease('p1')] })).unknownRequestIds).toEqual(['p1']);
    } finally {
      edge.close();
    }
  });
});
