import type { RedisConnection } from '../redis/redis-connection';
import { LuaScript } from '../redis/lua-script';

/**
 * KEYS: 1 a shard's outbox stream, then the unbilled hash of each account with bills among the
 * entries. ARGV: 1 consumer group, 2 entry count n, 3..n+2 the entry ids, then for each unbilled
 * hash in KEYS' order: its count m and m request ids. Acknowledges and deletes the entries and
 * clears the bills' unbilled marks in one step, so that a record is never gone while its mark
 * stays (a final lease reads the mark to tell a bill waiting from one applied). Returns {n}.
 */
export const ACK_DELIVERED = new LuaScript(
  'ack_delivered',
  `
local n = tonumber(ARGV[2])
if n > 0 then
  redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 3, n + 2))
  redis.call('XDEL', KEYS[1], unpack(ARGV, 3, n + 2))
end
local at = n + 3
for k = 2, #KEYS do
  local m = tonumber(ARGV[at])
  redis.call('HDEL', KEYS[k], unpack(ARGV, at + 1, at + m))
  at = at + m + 1
end
return {n}
`,
);

/** SCRIPT LOAD of the outbox's script, on each new connection. */
export async function loadOutboxScripts(redis: RedisConnection): Promise<void> {
  await ACK_DELIVERED.load(redis);
}
