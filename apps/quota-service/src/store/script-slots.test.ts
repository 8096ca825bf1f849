import { randomUUID } from 'node:crypto';
import { getKeyIndexes } from '@ioredis/commands';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { clusterSlot } from '../../test/cluster-slot';
import { RedisCommandMeter, SentCommand } from '../../test/redis-command-meter';
import { freeStep, grantLine, LEASE_TTL, MINUTE_START, paidBill, paidStep, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import * as admissionScripts from './admission/admission-scripts';
import { TEST_DEFAULTS } from '../../test/store-contracts/free-tier-fixtures';
import * as freeTierScripts from './free-tier/free-tier-scripts';
import * as leaseScripts from './leases/lease-scripts';
import * as limitScripts from './limits/limit-scripts';
import { LuaScript } from './redis/lua-script';
import { openRedisClient } from './redis/open-redis-client';
import * as outboxScripts from './outbox/outbox-scripts';
import { RedisAdmissionStore } from './admission/redis-admission-store';
import { RedisFreeTierStore } from './free-tier/redis-free-tier-store';
import { KeyLayout, redisKeys } from './redis/redis-keys';
import { RedisLeaseStore } from './leases/redis-lease-store';
import { RedisLimitStore } from './limits/redis-limit-store';
import { RedisBillOutbox } from './outbox/redis-bill-outbox';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const SCRIPTS = [admissionScripts, freeTierScripts, leaseScripts, limitScripts, outboxScripts]
  .flatMap((m) => Object.values(m))
  .filter((v): v is LuaScript => v instanceof LuaScript);
const nameOfSha = new Map(SCRIPTS.map((script) => [script.sha, script.name]));

/** The keys of a command, found as ioredis' cluster client finds them to route it (for EVALSHA: its KEYS). */
const keysOf = (args: string[]): string[] => getKeyIndexes(args[0].toLowerCase(), args.slice(1)).map((i) => args[1 + i]);
const nameOf = ({ args }: SentCommand) =>
  args[0].toLowerCase() === 'evalsha' ? (nameOfSha.get(args[1]) ?? `unknown script ${args[1]}`) : args[0].toLowerCase();

let testRedis: TestRedis;
let client: Redis;
let meter: RedisCommandMeter;

beforeAll(async () => {
  testRedis = await createTestRedis();
  client = await openRedisClient({ url: testRedis.url, commandTimeoutMs: 1000 }, silent);
  await Promise.all(SCRIPTS.map((script) => script.load(client)));
  meter = await RedisCommandMeter.open(testRedis.url);
});
afterAll(async () => {
  await meter.close();
  client.disconnect();
  await testRedis.cleanup();
});

/**
 * Every operation of every Redis store, each of its scripts run at least once, on the keys of
 * `layout` under a prefix of its own; returns every command sent, with those its script ran.
 */
async function everyOperation(layout: KeyLayout): Promise<SentCommand[]> {
  const prefix = `${testRedis.keyPrefix}${layout}:`;
  const keys = redisKeys(layout, prefix);
  let nowMs = MINUTE_START;
  const now = () => nowMs;
  const limits = new RedisLimitStore(client, SETTINGS, { keys, now });
  const freeTier = new RedisFreeTierStore(client, TEST_DEFAULTS, { keys, now });
  const leases = new RedisLeaseStore(client, { keys, now });
  const admission = new RedisAdmissionStore(client, SETTINGS, { keys, now });
  const [outbox, other] = ['a', 'b'].map((consumer) => new RedisBillOutbox(client, { keys, consumer, claimIdleMs: 0 }));
  const account = `acct_${randomUUID()}`;
  const { sent } = await meter.record(prefix, async () => {
    await limits.countRequest(account);
    await limits.acquirePlace(account, 'r-place');
    await limits.releasePlace(account, 'r-place', 10);
    await limits.finishRequest(account, 'r-place', 10);
    await limits.getUsage(account);

    await freeTier.updateSettings({ dailyTokens: 100_000 });
    await freeTier.snapshot();
    await freeTier.reserve({
      accountId: account,
      requestId: 'r-free',
      tokens: 100,
      dailyTokens: 100_000,
      poolTokens: 1_000_000,
      ttlMs: 60_000,
    });
    await freeTier.settle(account, 'r-free', 50);
    await freeTier.allowanceUsed(account);

    const older = {
      requestId: 'r-lease',
      accountId: account,
      model: 'vendor-v4-flash',
      payment: 'free' as const,
      promptTokens: 1,
      completionTokens: 1,
      usageEstimated: true,
    };
    await leases.start(older, LEASE_TTL);
    await leases.renew([older], LEASE_TTL);
    await leases.end(older);

    await grantLine(admission, account, 100_000);
    const paid = paidStep(account, 6000);
    await admission.admit(paid);
    await admission.finish({
      accountId: account,
      requestId: paid.requestId,
      admitted: true,
      usageEstimated: false,
      lapsed: false,
      payment: 'paid',
      tokens: 1100,
      chargeMicro: 1400,
      bill: paidBill(account, paid.requestId, 6000, 1000, 100, 1400),
    });
    const free = freeStep(account);
    await admission.admit(free);
    await admission.finish({
      accountId: account,
      requestId: free.requestId,
      admitted: true,
      usageEstimated: false,
      lapsed: false,
      payment: 'free',
      tokens: 0,
      chargeMicro: 0,
      bill: undefined,
    });
    await admission.resurrect(paidStep(account, 6000).lease, LEASE_TTL);
    await admission.adoptLine(`acct_${randomUUID()}`, { granted: 1000, charged: 0, returned: 0 });
    await admission.billStates([paid.lease]);
    await admission.credit(account);
    nowMs += LEASE_TTL;
    const [lapsed] = await leases.claimLapsed(10, 60_000);
    await leases.holdLapsed(lapsed, 120_000);
    await admission.terms(lapsed);
    nowMs += 600_000;
    await admission.idleLines(600_000, 10);
    await admission.returnLine(account, 600_000);

    await outbox.append({ kind: 'return', accountId: account, returnedTotalMicro: 1 });
    await outbox.claim(10);
    const taken = await other.claim(10);
    // The acknowledgement of a bill also clears its unbilled mark, in the shard's pipeline.
    expect(taken.some((c) => c.record.kind === 'bill')).toBe(true);
    // With records waiting: the oldest's range is read too.
    await outbox.backlog();
    await other.ack(taken.map((c) => c.id));
  });
  return sent;
}

/** Each command whose keys, or the keys its script touched, are in more than one slot: `name: slots`. */
function crossSlot(sent: SentCommand[]): string[] {
  return sent.flatMap((command) => {
    const touched = [...keysOf(command.args), ...command.scriptCommands.flatMap(keysOf)];
    const slots = [...new Set(touched.map(clusterSlot))];
    return slots.length > 1 ? [`${nameOf(command)}: ${slots.join(', ')}`] : [];
  });
}

describe('Redis Cluster hash slots of the scripts and commands', () => {
  it("computes a key's slot as CLUSTER KEYSLOT does", () => {
    // CRC16 of '123456789' is 0x31C3 (Redis Cluster specification); the rest as a Redis 7 in
    // cluster mode answers CLUSTER KEYSLOT: a tag is what the first { and the next } enclose,
    // unless that is empty.
    expect(clusterSlot('123456789')).toBe(0x31c3 % 16384);
    expect(clusterSlot('somekey')).toBe(11058);
    expect(clusterSlot('foo{hash_tag}')).toBe(2515);
    expect(clusterSlot('bar{hash_tag}')).toBe(2515);
    expect(clusterSlot('foo{}{bar}')).toBe(8363);
    expect(clusterSlot('foo{{bar}}zap')).toBe(4015);
    expect(clusterSlot('user:ü')).toBe(1048);
    expect(clusterSlot('{s63}:a:x:rpm')).toBe(10331);
  });

  it('in the shard layout, has every command and every script touch one slot, each script only the keys it is given', async () => {
    const sent = await everyOperation('shard');
    expect([...new Set(sent.map(nameOf))].filter((name) => SCRIPTS.some((script) => script.name === name)).sort()).toEqual(
      SCRIPTS.map((script) => script.name).sort(),
    );
    expect(sent.map(nameOf)).toEqual(expect.arrayContaining(['xadd', 'xlen', 'xgroup', 'xreadgroup', 'xautoclaim', 'xrange']));
    expect(crossSlot(sent)).toEqual([]);
    for (const command of sent) {
      const given = keysOf(command.args);
      for (const touched of command.scriptCommands.flatMap(keysOf))
        expect({ script: nameOf(command), touched, given: given.includes(touched) }).toMatchObject({ given: true });
    }
  });

  it("in the account layout, the standalone one, spans several slots with the admission scripts and the outbox's acknowledgement only", async () => {
    const sent = await everyOperation('account');
    const spanning = new Set(crossSlot(sent).map((line) => line.split(':')[0]));
    expect([...spanning].sort()).toEqual(['ack_delivered', 'admit', 'adopt_line', 'finish_admitted', 'resurrect_lease', 'return_line']);
  });
});
