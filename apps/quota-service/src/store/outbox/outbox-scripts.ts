import type { RedisConnection } from '../redis/redis-connection';
import { defineScript } from '../redis/lua-script';

/**
 * `outbox`: a shard's outbox stream; `unbilled`: the unbilled hash of each account with bills
 * among the entries. `items`: the `count` entry ids, then for each unbilled hash in its order: its
 * count m and m request ids. Acknowledges (consumer `group`) and deletes the entries and clears the
 * bills' unbilled marks in one step, so that a record is never gone while its mark stays (a final lease reads the mark to tell a bill
 * waiting from one applied).
 * Returns {count}.
 */
export const ACK_DELIVERED = defineScript('ack_delivered', {
  keys: ['outbox'],
  restKeys: 'unbilled',
  args: ['group', 'count'],
  restArgs: 'items',
  body: `
local n = tonumber(count)
if n > 0 then
  redis.call('XACK', outbox, group, unpack(items, 1, n))
  redis.call('XDEL', outbox, unpack(items, 1, n))
end
local at = n + 1
for k = 1, #unbilled do
  local m = tonumber(items[at])
  redis.call('HDEL', unbilled[k], unpack(items, at + 1, at + m))
  at = at + m + 1
end
return {n}
`,
});

/** SCRIPT LOAD of the outbox's script, on each new connection. */
export async function loadOutboxScripts(redis: RedisConnection): Promise<void> {
  await ACK_DELIVERED.load(redis);
}
