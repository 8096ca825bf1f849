import { ServiceError, status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestRedis, eventually, PausableProxy, startPausableProxy, TestRedis } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const REDIS_TIMEOUT_MS = 200;
/** Far longer than an answer may take; a call still running then has hung. */
const CLIENT_DEADLINE_MS = 5000;
/** Reconnection after the network heals: socket timeout, then a back-off of at most 2 s. */
const RECOVERY_MS = 8000;

type Quota = RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

async function startApp(redisUrl: string, redisKeyPrefix: string): Promise<{ app: QuotaApp; quota: Quota }> {
  const config = loadConfig({
    QUOTA_METRICS_PORT: '0',
    QUOTA_PORT: '0',
    BIND_HOST: '127.0.0.1',
    GRPC_INSECURE: 'true',
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
    SHUTDOWN_GRACE_MS: '1000',
  });
  const app = await startQuotaApp(config, silent);
  const settings = { timeoutMs: CLIENT_DEADLINE_MS, chain: clientChain() };
  return { app, quota: rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'quota-service', settings) };
}

/** Calls every method once; each must fail with UNAVAILABLE, quickly, without the store's error text. */
async function expectEveryMethodUnavailable(quota: Quota): Promise<void> {
  const accountId = 'acct_down';
  const calls: Array<() => Promise<unknown>> = [
    () => quota.countRequest({ accountId }),
    () => quota.acquirePlace({ accountId, requestId: 'r1', lease: undefined }),
    () => quota.releasePlace({ accountId, requestId: 'r1', promptTokens: 1, completionTokens: 1 }),
    () => quota.getUsage({ accountId }),
    () => quota.setFreeTierSettings({ paused: true }),
    () => quota.getFreeAllowance({ accountId }),
    () =>
      quota.finishRequest({
        accountId,
        requestId: 'r1',
        model: 'm',
        payment: quotaV1.Payment.PAYMENT_PAID,
        promptTokens: 1,
        completionTokens: 1,
        usageEstimated: false,
        admitted: false,
      }),
  ];
  for (const call of calls) {
    // A store that hung would leave the call to its own deadline: DEADLINE_EXCEEDED, not UNAVAILABLE.
    const err = (await call().then(
      () => undefined,
      (e: unknown) => e,
    )) as ServiceError | undefined;
    expect(err).toMatchObject({ code: status.UNAVAILABLE, details: 'quota store unavailable' });
  }
}

describe('quota-service when Redis cannot answer', () => {
  it('answers UNAVAILABLE at once when nothing listens at REDIS_URL', async () => {
    const { app, quota } = await startApp('redis://127.0.0.1:1', 'gw-test-down:');
    try {
      await expectEveryMethodUnavailable(quota);
    } finally {
      quota.close();
      await app.stop();
    }
  });

  describe('when a connected Redis stops answering (black hole)', () => {
    let redis: TestRedis;
    let proxy: PausableProxy;

    beforeAll(async () => {
      redis = await createTestRedis();
      proxy = await startPausableProxy(redis.url);
    });
    afterAll(async () => {
      await proxy?.close();
      await redis?.cleanup();
    });

    it('answers normally, then UNAVAILABLE within the Redis deadline instead of hanging, then recovers', async () => {
      const { app, quota } = await startApp(proxy.url, redis.keyPrefix);
      const count = () => quota.countRequest({ accountId: 'acct_hole' });
      try {
        expect(await count()).toMatchObject({ allowed: true, remaining: 29 });
        proxy.stall();
        await expectEveryMethodUnavailable(quota);
        await expectEveryMethodUnavailable(quota);
        proxy.resume();
        const answer = await eventually(() => count().catch(() => undefined), { timeoutMs: RECOVERY_MS, intervalMs: 100 });
        expect(answer).toMatchObject({ allowed: true });
      } finally {
        quota.close();
        await app.stop();
      }
    });
  });
});
