import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedisCluster, TestRedisClusterSpace } from '@gw/testing';
import { AdmissionStoresFactory, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import { loadAdmissionScripts } from './admission/admission-scripts';
import { describeAdmissionContract } from '../../test/store-contracts/admission-store.contract';
import { describeAdmittedFinishContract } from '../../test/store-contracts/admitted-finish.contract';
import { describeFinishRequestContract } from '../../test/store-contracts/finish-request.contract';
import { describeFreeTierBudget } from '../../test/store-contracts/free-tier-budget.contract';
import { describeFreeTierDecisions } from '../../test/store-contracts/free-tier-decisions.contract';
import { TEST_DEFAULTS } from '../../test/store-contracts/free-tier-fixtures';
import { loadFreeTierScripts } from './free-tier/free-tier-scripts';
import { describeLeaseStoreContract } from '../../test/store-contracts/lease-store.contract';
import { loadLeaseScripts } from './leases/lease-scripts';
import { describeLimitStoreContract } from '../../test/store-contracts/limit-store.contract';
import { loadLimitScripts } from './limits/limit-scripts';
import { openRedisCluster } from './redis/open-redis-client';
import { loadOutboxScripts } from './outbox/outbox-scripts';
import { RedisAdmissionStore } from './admission/redis-admission-store';
import { RedisFreeTierStore } from './free-tier/redis-free-tier-store';
import { RedisKeys, redisKeys } from './redis/redis-keys';
import { RedisLeaseStore } from './leases/redis-lease-store';
import { RedisLimitStore } from './limits/redis-limit-store';
import { RedisBillOutbox } from './outbox/redis-bill-outbox';
import { describeBillOutboxContract } from '../../test/store-contracts/bill-outbox.contract';

/*
 * Every store contract on a Redis Cluster (REDIS_CLUSTER_NODES, else one of the test's own: 3
 * masters, a replica each), through the cluster client quota-service opens, in the shard
 * layout: what passes on
 * memory and on one Redis passes here, each script in one hash slot on the master that serves it.
 */

const silent = createLogger('quota-service-test', 'error', () => undefined);
let cluster: TestRedisClusterSpace;
const clients: Cluster[] = [];

const loadScripts = async (node: Parameters<typeof loadLimitScripts>[0]) => {
  await Promise.all([
    loadLimitScripts(node),
    loadFreeTierScripts(node),
    loadLeaseScripts(node),
    loadAdmissionScripts(node),
    loadOutboxScripts(node),
  ]);
};

/** A new cluster client (closing a limit store closes its client), and fresh key names. */
async function connect(): Promise<{ client: Cluster; keys: RedisKeys }> {
  const client = await openRedisCluster(cluster.nodes, { commandTimeoutMs: 2000, onReady: loadScripts }, silent);
  clients.push(client);
  return { client, keys: redisKeys('shard', `${cluster.keyPrefix}${randomUUID()}:`) };
}

beforeAll(async () => {
  cluster = await createTestRedisCluster();
}, 30_000);
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await cluster.cleanup();
});

const admissionStores: AdmissionStoresFactory = async (_settings, now) => {
  const { client, keys } = await connect();
  const outbox = new RedisBillOutbox(client, { keys, consumer: `test-${randomUUID()}`, claimIdleMs: 60_000 });
  return {
    admission: new RedisAdmissionStore(client, SETTINGS, { keys, now, outboxAppends: outbox }),
    limits: new RedisLimitStore(client, SETTINGS, { keys, now }),
    leases: new RedisLeaseStore(client, { keys, now }),
    outbox,
    freeTier: new RedisFreeTierStore(client, TEST_DEFAULTS, { keys, now }),
  };
};

describeAdmissionContract('redis cluster', admissionStores);
describeAdmittedFinishContract('redis cluster', admissionStores);
describeLimitStoreContract('redis cluster', async (settings, now) => {
  const { client, keys } = await connect();
  return new RedisLimitStore(client, settings, { keys, now });
});
describeFinishRequestContract('redis cluster', async (settings, now) => {
  const { client, keys } = await connect();
  return new RedisLimitStore(client, settings, { keys, now });
});
describeLeaseStoreContract('redis cluster', async (now) => {
  const { client, keys } = await connect();
  return new RedisLeaseStore(client, { keys, now });
});
describeBillOutboxContract('redis cluster', async () => {
  const { client, keys } = await connect();
  return new RedisBillOutbox(client, { keys, consumer: 'replica-1', claimIdleMs: 30_000 });
});
describeFreeTierDecisions('redis cluster', async (defaults, now) => {
  const { client, keys } = await connect();
  return new RedisFreeTierStore(client, defaults, { keys, now });
});
describeFreeTierBudget('redis cluster', async (defaults, now) => {
  const { client, keys } = await connect();
  return new RedisFreeTierStore(client, defaults, { keys, now });
});
