import type { RedisConnection } from './redis-connection';
import { NOW } from './lua-clock';
import { defineScript } from './lua-script';
import { ScoredMember, scoredMembers } from './shard-walk';

/**
 * Writes nothing. In a sorted set scored by time (ms), a member is due once its score is `age`
 * ms old (a lease at its lapse time: age 0; a line idle for the idle time: age the idle time).
 * Returns the time now, the score of the first member not yet due ('' when none), and up to `max`
 * due members, oldest first, each followed by its score: so that a pass over the shards takes the
 * oldest of all, and knows when the shard can next have one due.
 */
export const DUE_MEMBERS = defineScript('due_members', {
  keys: ['scores'],
  args: ['age', 'max'],
  uses: NOW,
  body: `
local now = now_ms(clock)
local upto = string.format('%.0f', now - tonumber(age))
local due = redis.call('ZRANGEBYSCORE', scores, '-inf', upto, 'WITHSCORES', 'LIMIT', 0, tonumber(max))
local later = redis.call('ZRANGEBYSCORE', scores, '(' .. upto, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {now, later[2] or '', due}
`,
});

/** What DUE_MEMBERS read of one shard's sorted set. */
export interface DueRead {
  /** The store's time at the read (Redis TIME, or the test clock). */
  storeNowMs: number;
  /** The members due, oldest first (at most the `max` asked). */
  due: ScoredMember[];
  /** When the first member not yet due will be, in the store's time; undefined when there is none. */
  nextDueMs?: number;
}

/** Runs DUE_MEMBERS on shard `shard`'s sorted set `key`; `clock` is a test clock (ms), else Redis TIME is read. */
export async function readDue(
  redis: RedisConnection,
  shard: number,
  key: string,
  ageMs: number,
  max: number,
  clock?: number,
): Promise<DueRead> {
  const reply = await DUE_MEMBERS.run(
    redis,
    DUE_MEMBERS.keyList({ scores: key }),
    DUE_MEMBERS.argList({ age: ageMs, max }, clock === undefined ? [] : [clock]),
  );
  if (!Array.isArray(reply) || reply.length !== 3) throw new Error('unexpected script reply');
  const [now, later, due] = reply as [unknown, unknown, unknown];
  const storeNowMs = Number(now);
  if (!Number.isFinite(storeNowMs)) throw new Error('unexpected script reply');
  const laterScore = later === '' || later === null ? undefined : Number(later);
  return { storeNowMs, due: scoredMembers(shard, due), nextDueMs: laterScore === undefined ? undefined : laterScore + ageMs };
}
