import { createHash } from 'node:crypto';
import { clusterSlot } from '../../../test/cluster-slot';
import { redisKeys, SHARD_COUNT, shardOf } from './redis-keys';

/** The tag Redis Cluster hashes a key by: between the first `{` and the next `}`. */
const hashTag = (key: string) => /{([^}]+)}/.exec(key)?.[1];

describe('redisKeys', () => {
  it('names the keys of the account layout as every earlier release did, so that replicas of both share them', () => {
    const keys = redisKeys('account', 'gw:');
    const { shard, ...account } = keys.account('acct_1');
    expect(account).toEqual({
      minute: 'gw:{acct_1}:rpm',
      places: 'gw:{acct_1}:places',
      lastGrant: 'gw:{acct_1}:places:last',
      usageToday: 'gw:{acct_1}:usage:today',
      usageTotal: 'gw:{acct_1}:usage:total',
      finished: 'gw:{acct_1}:finished',
      freeBudget: 'gw:{acct_1}:free',
      freeHolds: 'gw:{acct_1}:free:holds',
      freeExpiry: 'gw:{acct_1}:free:expiry',
      credit: 'gw:{acct_1}:credit',
      lapseEstimates: 'gw:{acct_1}:credit:estimates',
      admissions: 'gw:{acct_1}:admissions',
      previousReleaseHolds: 'gw:{acct_1}:credit:holds',
      unbilled: 'gw:{acct_1}:credit:unbilled',
    });
    const global = {
      index: 0,
      leases: { lapse: 'gw:{leases}:lapse', data: 'gw:{leases}:data' },
      outbox: 'gw:{outbox}:settles',
      activeLines: 'gw:{credit}:active',
    };
    expect(shard).toEqual(global);
    expect(keys.shards).toEqual([global]);
    expect(keys.shardOfAccount('acct_2')).toEqual(global);
    expect(keys.freeTier).toEqual({
      settings: 'gw:{freetier}:settings',
      poolBudget: 'gw:{freetier}:pool',
      poolHolds: 'gw:{freetier}:pool:holds',
      poolExpiry: 'gw:{freetier}:pool:expiry',
    });
  });

  it("puts every key of an account in the shard layout beside its shard's indexes, under the shard's tag, named with the account id", () => {
    const keys = redisKeys('shard', 'gw:');
    expect(keys.shards).toHaveLength(SHARD_COUNT);
    for (const id of ['acct_1', 'acct_5c0ffee0ddba11c0ffee0dd', 'acct_{odd}', 'acct_ü']) {
      const { shard, ...account } = keys.account(id);
      const tag = `s${shardOf(id)}`;
      expect(shard).toBe(keys.shards[shardOf(id)]);
      expect(keys.shardOfAccount(id)).toBe(shard);
      for (const key of Object.values(account)) {
        expect(key.startsWith(`gw:{${tag}}:a:${id}:`)).toBe(true);
        expect(hashTag(key)).toBe(tag);
      }
      for (const key of [shard.leases.lapse, shard.leases.data, shard.outbox, shard.activeLines]) expect(hashTag(key)).toBe(tag);
    }
  });

  it('gives each shard a hash slot of its own, so that a cluster can spread them', () => {
    const slots = new Set(redisKeys('shard', 'gw:').shards.map((shard) => clusterSlot(shard.outbox)));
    expect(slots.size).toBe(SHARD_COUNT);
  });

  it('keeps an account in the shard of CRC-32 of its id mod 64, the same in every release (another would be a key migration)', () => {
    expect(SHARD_COUNT).toBe(64);
    // zlib.crc32('123456789') is 0xcbf43926, the CRC-32 check value; 0xcbf43926 % 64 = 38.
    expect(shardOf('123456789')).toBe(38);
    expect(shardOf('acct_1')).toBe(3127814401 % 64);
  });

  it('spreads 3,000 accounts over all 64 shards, none with more than twice or less than a third of its share', () => {
    const spread = (ids: string[]) => {
      const perShard = new Array<number>(SHARD_COUNT).fill(0);
      for (const id of ids) perShard[shardOf(id)]++;
      const share = ids.length / SHARD_COUNT;
      const chiSquare = perShard.reduce((sum, n) => sum + (n - share) ** 2 / share, 0);
      return { fewest: Math.min(...perShard), most: Math.max(...perShard), chiSquare };
    };
    // Ids as auth-service makes them (acct_ and 24 hex digits), and ids in sequence.
    const made = Array.from({ length: 3000 }, (_, i) => `acct_${createHash('sha256').update(String(i)).digest('hex').slice(0, 24)}`);
    const numbered = Array.from({ length: 3000 }, (_, i) => `acct_${i}`);
    for (const ids of [made, numbered]) {
      const { fewest, most, chiSquare } = spread(ids);
      expect(fewest).toBeGreaterThanOrEqual(3000 / 64 / 3);
      expect(most).toBeLessThanOrEqual((2 * 3000) / 64);
      // Chi-square with 63 degrees of freedom: above 100 in fewer than 1 of 400 uniform spreads.
      expect(chiSquare).toBeLessThan(100);
    }
  });
});
