import type { Cluster, Redis } from 'ioredis';
import { CreditTotals } from '../admission/admission-store';
import { defineScript } from '../redis/lua-script';
import type { RedisConnection } from '../redis/redis-connection';
import { accountOfKey, RedisKeys } from '../redis/redis-keys';
import { parseLeaseRecord } from '../outbox/outbox-record-json';
import { AccountFacts, OverdueLease, StoreAuditSource } from './store-audit-source';

/**
 * One account's credit, holds (those of its admission records) and places, which of their
 * requests have a lease, and how many of its bills wait for billing-service, in one atomic look (Admit and Finish change a hold and its
 * lease in one script, so that reading them apart would see one without the other). Until the
 * release after this one (previous-release-holds.ts): a hold only the previous release's hash
 * holds is a hold too, and a record the previous release kept after its request finished (an
 * estimate's) holds nothing.
 */
const ACCOUNT_FACTS = defineScript('account_facts', {
  keys: ['credit', 'admissions', 'places', 'lease_data', 'unbilled', 'previous_holds', 'finished'],
  args: [],
  body: `
local line = redis.call('HMGET', credit, 'gr', 'ch', 'rt', 'hd')
local records = redis.call('HGETALL', admissions)
local held = {}
local in_records = {}
for i = 1, #records, 2 do
  local hold = cjson.decode(records[i + 1]).hold
  if hold and not redis.call('ZSCORE', finished, records[i]) then
    held[#held + 1] = records[i]
    held[#held + 1] = string.format('%.0f', hold.amountMicro)
  end
  in_records[records[i]] = true
end
local previous = redis.call('HGETALL', previous_holds)
for i = 1, #previous, 2 do
  if not in_records[previous[i]] then
    held[#held + 1] = previous[i]
    held[#held + 1] = previous[i + 1]
  end
end
local placed = redis.call('HGETALL', places)
local leased = {}
for _, list in ipairs({held, placed}) do
  for i = 1, #list, 2 do
    if redis.call('HEXISTS', lease_data, list[i]) == 1 then leased[#leased + 1] = list[i] end
  end
end
return {line, held, placed, leased, redis.call('HLEN', unbilled)}
`,
});

const SCAN_COUNT = 500;

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** A HGETALL reply (field, value, ...) as whole numbers by field. */
function numberMap(reply: unknown): Map<string, number> {
  const map = new Map<string, number>();
  if (!Array.isArray(reply)) return map;
  for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), Number(reply[i + 1]));
  return map;
}

/**
 * The places hash (field, value, ...) as grant times by request id: a place another caller than
 * the edge took is kept as 'grant ms:caller' (see PLACE_OWNER in limit-scripts.ts).
 */
function grantTimes(reply: unknown): Map<string, number> {
  const map = new Map<string, number>();
  if (!Array.isArray(reply)) return map;
  for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), Number(String(reply[i + 1]).split(':')[0]));
  return map;
}

/** StoreAuditSource on Redis or a Redis Cluster (every master scanned). */
export class RedisStoreAudit implements StoreAuditSource {
  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly prefix: string,
  ) {}

  async *accountIds(batch: number): AsyncIterable<string[]> {
    const ids = await this.allAccountIds();
    for (let i = 0; i < ids.length; i += batch) yield ids.slice(i, i + batch);
  }

  facts(accountIds: readonly string[]): Promise<AccountFacts[]> {
    return Promise.all(accountIds.map((id) => this.accountFacts(id)));
  }

  async overdueLeases(beforeMs: number, max: number): Promise<OverdueLease[]> {
    const found: OverdueLease[] = [];
    for (const shard of this.keys.shards) {
      const lapsed = await this.redis.zrangebyscore(
        shard.leases.lapse,
        '-inf',
        `(${beforeMs}`,
        'WITHSCORES',
        'LIMIT',
        0,
        max - found.length,
      );
      for (let i = 0; i + 1 < lapsed.length; i += 2) {
        const requestId = lapsed[i];
        const data = await this.redis.hget(shard.leases.data, requestId);
        const lease = data === null ? undefined : parseLeaseRecord(data);
        found.push({ requestId, accountId: lease?.accountId ?? '', lapsedAtMs: Number(lapsed[i + 1]) });
      }
      if (found.length >= max) break;
    }
    return found;
  }

  async freePoolUsed(nowMs: number): Promise<number> {
    const [day, used] = await this.redis.hmget(this.keys.freeTier.poolBudget, 'day', 'used');
    return Number(day) === Math.floor(nowMs / 86_400_000) ? Number(used ?? 0) : 0;
  }

  /** The ids of the accounts that have a credit line or places, each once, from every master. */
  private async allAccountIds(): Promise<string[]> {
    const masters = this.redis.isCluster ? (this.redis as Cluster).nodes('master') : [this.redis as Redis];
    const ids = new Set<string>();
    for (const master of masters) {
      for (const suffix of ['credit', 'places'] as const) {
        let cursor = '0';
        do {
          const [next, found] = await master.scan(cursor, 'MATCH', `${escapeGlob(this.prefix)}*:${suffix}`, 'COUNT', SCAN_COUNT);
          cursor = next;
          for (const key of found) {
            const id = accountOfKey(this.keys, this.prefix, key, suffix);
            if (id !== undefined) ids.add(id);
          }
        } while (cursor !== '0');
      }
    }
    return [...ids].sort();
  }

  private async accountFacts(accountId: string): Promise<AccountFacts> {
    const keys = this.keys.account(accountId);
    const scriptKeys = ACCOUNT_FACTS.keyList({
      credit: keys.credit,
      admissions: keys.admissions,
      places: keys.places,
      lease_data: keys.shard.leases.data,
      unbilled: keys.unbilled,
      previous_holds: keys.previousReleaseHolds,
      finished: keys.finished,
    });
    const reply = (await ACCOUNT_FACTS.run(this.redis, scriptKeys, [])) as unknown[];
    const stored = reply[0] as (string | null)[];
    const [granted, charged, returned, held] = stored.map((v) => Number(v ?? 0));
    const credit: CreditTotals = { granted, charged, returned, held };
    return {
      accountId,
      credit,
      holds: numberMap(reply[1]),
      places: grantTimes(reply[2]),
      leased: new Set((reply[3] as unknown[]).map(String)),
      lineKnown: stored[0] !== null,
      billsWaiting: Number(reply[4]),
    };
  }
}
