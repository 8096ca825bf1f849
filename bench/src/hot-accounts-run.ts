import { startStack } from '@gw/test-stack';
import { createTestDatabase, createTestRedis } from '@gw/testing';
import { AccountPool } from './account-pool';
import { LatencyHistogram } from './latency-histogram';
import { openLoop } from './open-loop';
import { Target, targetPool } from './target';

const ACCOUNTS = 20;

/**
 * The second load shape: a stack of its own whose per-account limits are raised, and only 20
 * accounts, so that many requests of one account (one balance row, one place counter) are in
 * flight together: `rate` paid requests a second for `seconds`, against provider-sim directly.
 */
export async function hotAccountsRun(
  body: string,
  rate: number,
  seconds: number,
): Promise<{ gateway: LatencyHistogram; direct: LatencyHistogram }> {
  const [db, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const limits = { RATE_LIMIT_PER_MINUTE: '1000000', CONCURRENCY_LIMIT: '10000' };
  const stack = await startStack({
    databaseUrl: db.url,
    redisUrl: redis.url,
    redisKeyPrefix: redis.keyPrefix,
    env: { LOG_LEVEL: 'warn', ...limits },
  });
  try {
    const accounts = await AccountPool.create(
      ACCOUNTS,
      stack.env.AUTH_ADDR,
      stack.env.BILLING_ADDR,
      stack.grpcSecurity('ctl'),
      Number.MAX_SAFE_INTEGER,
    );
    const gateway: Target = { name: 'gateway', ...targetPool(stack.baseUrl), authorization: () => `Bearer ${accounts.take()}` };
    const direct: Target = { name: 'direct', ...targetPool(stack.providerUrl), authorization: () => 'Bearer bench' };
    await openLoop(gateway, body, 200, 2);
    const directRun = await openLoop(direct, body, rate, seconds);
    const gatewayRun = await openLoop(gateway, body, rate, seconds);
    await Promise.all([gateway.pool.close(), direct.pool.close()]);
    return { gateway: gatewayRun, direct: directRun };
  } finally {
    await stack.stop();
    await Promise.all([db.drop(), redis.cleanup()]);
  }
}
