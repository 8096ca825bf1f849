/*
 * What the Redis stores need to work on several shards at once (redis-keys.ts): the work of each
 * shard is sent at once (its commands in flight together), and their answers merged here.
 */

/** `items` by the key `keyOf` gives each, in the order first seen. */
export function groupBy<K, T>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** A member of a sorted set with its score, read from one shard. */
export interface ScoredMember {
  shard: number;
  member: string;
  score: number;
}

/** The reply of ZRANGEBYSCORE ... WITHSCORES (member, score, member, score...) on shard `shard`. */
export function scoredMembers(shard: number, reply: unknown): ScoredMember[] {
  if (!Array.isArray(reply) || reply.length % 2 !== 0) throw new Error('unexpected script reply');
  const members: ScoredMember[] = [];
  for (let i = 0; i < reply.length; i += 2) {
    const score = Number(reply[i + 1]);
    if (!Number.isFinite(score)) throw new Error('unexpected script reply');
    members.push({ shard, member: String(reply[i]), score });
  }
  return members;
}

/**
 * The `max` lowest-scored members of all shards' (the oldest, as the scores are times), lowest
 * first: what a walk over the shards takes so that it is the oldest of all, and no more than asked.
 */
export function lowestOf(perShard: ScoredMember[][], max: number): ScoredMember[] {
  return perShard
    .flat()
    .sort((a, b) => a.score - b.score)
    .slice(0, max);
}
