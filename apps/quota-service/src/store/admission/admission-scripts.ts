import type { RedisConnection } from '../redis/redis-connection';
import { BUDGET } from '../free-tier/free-tier-scripts';
import { ADD_USAGE, LIVE_PLACES, MINUTE_COUNT, PLACE_OWNER } from '../limits/limit-scripts';
import { NOW } from '../redis/lua-clock';
import { LuaScript } from '../redis/lua-script';
import { OUTBOX_FIELD } from '../outbox/redis-settle-outbox';

/*
 * The admission of API requests, one script per step. Every key comes in KEYS (none is built
 * here), all in one hash slot in the shard layout (store/redis/redis-keys.ts): the account's keys and its
 * shard's leases, outbox and active lines. The time is Redis TIME unless a test clock is passed
 * last. Amounts are integer micro-LYD, exact in Lua's doubles up to 2^53.
 */

/** ADMIT's answers (the first number of its reply). */
export const ADMIT_REPLY = { admitted: 1, rateLimited: 2, notCovered: 3, noPlace: 4, gone: 5 } as const;

/**
 * KEYS: 1 minute hash, 2 places hash, 3 last-grant string, 4 credit hash {gr, ch, rt, hd},
 *       5 credit holds hash {request id: micro}, 6 finished zset, 7 lease lapse zset,
 *       8 lease data hash, 9 active lines zset, 10 unbilled hash, 11 admissions hash.
 * ARGV: 1 request id, 2 account id, 3 'count'|'nocount', 4 per-minute limit, 5 place limit,
 *       6 recovery ms, 7 lease ttl ms, 8 'paid'|'free', 9 worst micro, 10-12 granted, charged and
 *       returned totals to merge (each '' for none), 13 lease JSON, 14 finish memory ms, 15 the
 *       terms' JSON object (admission record without its time), [16 now].
 * In this order, all or nothing: a request id leased already answers admitted again (not counted
 * again); the count (a refusal writes nothing); a finished id answers gone; a paid request needs
 * gr - ch - rt - hd >= worst after the merge (a line the store lost, no gr, while bills it queued
 * again wait: billing's totals judged with ch added to billing's, not kept, as ADOPT_LINE says
 * why); a place (as ACQUIRE_PLACE); then the hold, the place, the last grant, the lease, the
 * active-lines entry and the admission record (the terms with admittedAtMs = now) are written
 * together.
 * Returns {1, count, now, repeated 0/1, repeated: hold or -1, admitted ms (a repeat's: its
 * record's, else now)} | {2|4|5, count, now} | {3, count, now, gr, ch, rt, hd}.
 */
export const ADMIT = new LuaScript(
  'admit',
  `${NOW}${LIVE_PLACES}${MINUTE_COUNT}
local rid, account = ARGV[1], ARGV[2]
local now = now_ms(ARGV[16])
if redis.call('HEXISTS', KEYS[8], rid) == 1 then
  local record = redis.call('HGET', KEYS[11], rid)
  local at = record and tonumber(string.match(record, '"admittedAtMs":(%d+)')) or now
  return {1, minute_count(KEYS[1], now), now, 1, tonumber(redis.call('HGET', KEYS[5], rid)) or -1, at}
end
local count = minute_count(KEYS[1], now)
if ARGV[3] == 'count' then
  if count >= tonumber(ARGV[4]) then return {2, count, now} end
  count = count_one(KEYS[1], count, now)
end
local finished = tonumber(redis.call('ZSCORE', KEYS[6], rid))
if finished and now - finished < tonumber(ARGV[14]) then return {5, count, now} end
local paid = ARGV[8] == 'paid'
local worst = tonumber(ARGV[9])
if paid then
  local stored = redis.call('HMGET', KEYS[4], 'gr', 'ch', 'rt', 'hd')
  local t = {}
  for i = 1, 4 do t[i] = tonumber(stored[i]) or 0 end
  local lost = not stored[1] and redis.call('HLEN', KEYS[10]) > 0
  local fields = {'gr', 'ch', 'rt'}
  for i = 1, 3 do
    local given = tonumber(ARGV[9 + i])
    if given and lost then
      if i == 2 then t[i] = t[i] + given elseif given > t[i] then t[i] = given end
    elseif given and given > t[i] then
      t[i] = given
      redis.call('HSET', KEYS[4], fields[i], given)
      if i == 1 then redis.call('ZADD', KEYS[9], now, account) end
    end
  end
  if t[1] - t[2] - t[3] - t[4] < worst then return {3, count, now, t[1], t[2], t[3], t[4]} end
end
local recovery = tonumber(ARGV[6])
live_places(KEYS[2], KEYS[3], now, recovery)
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[5]) then return {4, count, now} end
if paid then
  redis.call('HINCRBY', KEYS[4], 'hd', worst)
  redis.call('HSET', KEYS[5], rid, worst)
  redis.call('ZADD', KEYS[9], now, account)
end
redis.call('HSET', KEYS[2], rid, now)
redis.call('PEXPIRE', KEYS[2], recovery)
redis.call('SET', KEYS[3], now, 'PX', recovery)
redis.call('ZADD', KEYS[7], now + tonumber(ARGV[7]), rid)
redis.call('HSET', KEYS[8], rid, ARGV[13])
redis.call('HSET', KEYS[11], rid, string.sub(ARGV[15], 1, -2) .. ',"admittedAtMs":' .. string.format('%.0f', now) .. '}')
redis.call('PEXPIRE', KEYS[11], tonumber(ARGV[14]))
return {1, count, now, 0, -1, now}
`,
);

/**
 * KEYS: 1 places hash, 2 last-grant string, 3 usage today hash, 4 usage total string, 5 finished
 *       zset, 6 credit hash, 7 credit holds hash, 8 lease lapse zset, 9 lease data hash,
 *       10 outbox stream, 11-13 the account's free allowance (budget, holds, expiry),
 *       14 lapse estimates hash {request id: charge, request id + ':tokens': tokens}, 15 unbilled hash,
 *       16 admissions hash.
 * ARGV: 1 request id, 2 tokens, 3 recovery ms, 4 finish memory ms, 5 'paid'|'free',
 *       6 admitted 1/0, 7 charge micro, 8 bill JSON or '', 9 'lapse' (the reaper's estimate at the
 *       end of the grace) | 'real' (usage the provider reported) | '', 10 the terms the caller
 *       restated, JSON {payment, model, hold?, admittedAtMs?}, or '' (none to check), [11 now].
 * Once per request id (a repeat changes nothing): the request's hold leaves hd, its place is freed
 * (when the edge took it: the chat product's place under the same id stays)
 * and its lease ended; admitted: the usage counted, then paid: the charge added to ch, free: the
 * allowance settled with the tokens; the bill appended. Not admitted: the allowance reservation is
 * returned whole and nothing else happens (the id stays finished). The admission record goes with
 * the finish, but an estimate's, which the real bill correcting it reads. The one repeat that
 * does something is a real bill of a request the reaper finished from an estimate (paid or free,
 * also an estimate of nothing, which queued no bill): its bill is queued (billing-service corrects
 * the row, or writes it), usage moves by the tokens it has beyond the estimate's and, paid, ch
 * grows by what the correction adds, and gr by what the line's unheld part lacks of it, as
 * billing-service moves the line for it (so that both keep the same totals); what the line's
 * available part did not carry is answered as the shortfall (billing-service takes it from the
 * rest of the balance as far as it goes and records the rest in the ledger; a smaller charge is
 * given back there, outside the line). A bill appended marks its request unbilled until the forwarder has it applied.
 * First of all, restated terms that disagree with the admission record refuse the finish, nothing
 * changed (refused: 1 payment, 2 model, 3 hold, 4 admitted time), and so does "never admitted"
 * from an edge whose renewals carried the admitted time, which only Admit's answer gives (5); a
 * bill without its admitted time gets the record's. Returns {released 0/1, repeated 0/1,
 * shortfall micro, refused 0-5}.
 */
export const FINISH_ADMITTED = new LuaScript(
  'finish_admitted',
  `${NOW}${LIVE_PLACES}${ADD_USAGE}${BUDGET}${PLACE_OWNER}
local rid = ARGV[1]
local now = now_ms(ARGV[11])
local memory = tonumber(ARGV[4])
local bill = ARGV[8]
local stored_terms = redis.call('HGET', KEYS[16], rid)
if stored_terms and ARGV[10] ~= '' then
  local r, g = cjson.decode(stored_terms), cjson.decode(ARGV[10])
  if r.payment ~= g.payment then return {0, 0, 0, 1} end
  if r.model ~= g.model then return {0, 0, 0, 2} end
  if g.hold ~= nil then
    if type(r.hold) ~= 'table' then return {0, 0, 0, 3} end
    for _, f in ipairs({'amountMicro', 'inputMicroPerMillion', 'outputMicroPerMillion'}) do
      if r.hold[f] ~= g.hold[f] then return {0, 0, 0, 3} end
    end
  end
  if g.admittedAtMs ~= nil and g.admittedAtMs ~= r.admittedAtMs then return {0, 0, 0, 4} end
end
if ARGV[6] == '0' then
  local renewed = redis.call('HGET', KEYS[9], rid)
  if renewed and string.find(renewed, '"admittedAtMs":', 1, true) then return {0, 0, 0, 5} end
end
if stored_terms and bill ~= '' and not string.find(bill, '"admittedAtMs":', 1, true) then
  local at = string.match(stored_terms, '"admittedAtMs":(%d+)')
  if at then bill = string.sub(bill, 1, -2) .. ',"admittedAtMs":' .. at .. '}' end
end
local function queue_bill()
  redis.call('XADD', KEYS[10], '*', '${OUTBOX_FIELD}', bill)
  redis.call('HSET', KEYS[15], rid, 1)
end
local charge = tonumber(ARGV[7])
local tokens = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - memory)
if redis.call('ZSCORE', KEYS[5], rid) then
  local estimated = ARGV[9] == 'real' and tonumber(redis.call('HGET', KEYS[14], rid))
  if not estimated then return {0, 1, 0, 0} end
  local estimated_tokens = redis.call('HGET', KEYS[14], rid .. ':tokens')
  redis.call('HDEL', KEYS[14], rid, rid .. ':tokens')
  redis.call('HDEL', KEYS[16], rid)
  if estimated_tokens then add_usage(KEYS[3], KEYS[4], tokens - tonumber(estimated_tokens), now) end
  local shortfall = 0
  if ARGV[5] == 'paid' and charge > estimated then
    local line = redis.call('HMGET', KEYS[6], 'gr', 'ch', 'rt', 'hd')
    local unheld = (tonumber(line[1]) or 0) - (tonumber(line[2]) or 0) - (tonumber(line[3]) or 0)
    local more = charge - estimated
    shortfall = more - math.min(more, math.max(unheld - (tonumber(line[4]) or 0), 0))
    local extended = math.max(more - unheld, 0)
    if extended > 0 then redis.call('HINCRBY', KEYS[6], 'gr', extended) end
    redis.call('HINCRBY', KEYS[6], 'ch', more)
  end
  if ARGV[8] ~= '' then queue_bill() end
  return {0, 1, shortfall, 0}
end
redis.call('ZADD', KEYS[5], now, rid)
redis.call('PEXPIRE', KEYS[5], memory)
local held = tonumber(redis.call('HGET', KEYS[7], rid))
if held then
  redis.call('HDEL', KEYS[7], rid)
  redis.call('HINCRBY', KEYS[6], 'hd', -held)
end
local released = 0
if live_places(KEYS[1], KEYS[2], now, tonumber(ARGV[3])) and not another_callers(KEYS[1], rid, 'edge') then released = redis.call('HDEL', KEYS[1], rid) end
redis.call('ZREM', KEYS[8], rid)
redis.call('HDEL', KEYS[9], rid)
if ARGV[9] == 'lapse' and ARGV[6] == '1' then
  redis.call('PEXPIRE', KEYS[16], memory)
else
  redis.call('HDEL', KEYS[16], rid)
end
if ARGV[6] == '0' then
  settle_budget(KEYS[11], KEYS[12], KEYS[13], rid, 0, now)
  return {released, 0, 0, 0}
end
add_usage(KEYS[3], KEYS[4], tokens, now)
if ARGV[5] == 'paid' then
  if charge > 0 then redis.call('HINCRBY', KEYS[6], 'ch', charge) end
else
  settle_budget(KEYS[11], KEYS[12], KEYS[13], rid, tokens, now)
end
if ARGV[9] == 'lapse' then
  redis.call('HSET', KEYS[14], rid, charge, rid .. ':tokens', tokens)
  redis.call('PEXPIRE', KEYS[14], memory)
end
if ARGV[8] ~= '' then queue_bill() end
return {released, 0, 0, 0}
`,
);

/**
 * KEYS: 1 credit hash, 2 active lines zset, 3 outbox stream.
 * ARGV: 1 account id, 2 the account id as a JSON string, 3 idle ms or '' (forced), [4 now].
 * Gives back gr - ch - rt - hd when positive (added to rt; the new rt queued as a line return),
 * with idle ms only if the account's last admission or grant is that old. The account leaves the
 * active lines once hd is 0. Returns {returned, hd, rt}.
 */
export const RETURN_LINE = new LuaScript(
  'return_line',
  `${NOW}
local now = now_ms(ARGV[4])
local stored = redis.call('HMGET', KEYS[1], 'gr', 'ch', 'rt', 'hd')
local gr, ch, rt, hd = tonumber(stored[1]) or 0, tonumber(stored[2]) or 0, tonumber(stored[3]) or 0, tonumber(stored[4]) or 0
if ARGV[3] ~= '' then
  local last = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]))
  if not last or now - last < tonumber(ARGV[3]) then return {0, hd, rt} end
end
local returned = gr - ch - rt - hd
if returned > 0 then
  rt = redis.call('HINCRBY', KEYS[1], 'rt', returned)
  local record = '{"kind":"return","accountId":' .. ARGV[2] .. ',"returnedTotalMicro":' .. string.format('%.0f', rt) .. '}'
  redis.call('XADD', KEYS[3], '*', '${OUTBOX_FIELD}', record)
else
  returned = 0
end
if hd <= 0 then redis.call('ZREM', KEYS[2], ARGV[1]) end
return {returned, hd, rt}
`,
);

/**
 * KEYS: active lines zset. ARGV: idle ms, max, [now]. Up to `max` accounts idle that long, longest
 * idle first, each followed by the ms of its last admission or grant (to merge several shards').
 */
export const IDLE_LINES = new LuaScript(
  'idle_lines',
  `${NOW}
local now = now_ms(ARGV[3])
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]), 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
`,
);

/**
 * KEYS: 1 finished zset, 2 lease lapse zset, 3 lease data hash, 4 credit hash, 5 credit holds
 *       hash, 6 active lines zset.
 * ARGV: 1 request id, 2 lease ttl ms, 3 lease JSON, 4 finish memory ms, 5 hold micro or '',
 *       6 account id, [7 now].
 * Recreates a lease the store lost, unless its id was finished (0) or is leased (1). A paid
 * request's hold is held again in its account's line (unless the store still has it), since
 * billing-service lent that money and the request will be charged from it: so that the line is
 * never given back, nor lent again to another request, while the request holds it. Returns {2}
 * when recreated.
 */
export const RESURRECT_LEASE = new LuaScript(
  'resurrect_lease',
  `${NOW}
local now = now_ms(ARGV[7])
local finished = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if finished and now - finished < tonumber(ARGV[4]) then return {0} end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return {1} end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local hold = tonumber(ARGV[5])
if hold and redis.call('HSETNX', KEYS[5], ARGV[1], hold) == 1 then
  redis.call('HINCRBY', KEYS[4], 'hd', hold)
  redis.call('ZADD', KEYS[6], now, ARGV[6])
end
return {2}
`,
);

/**
 * KEYS: 1 credit hash, 2 active lines zset, 3 unbilled hash. ARGV: 1 account id, 2-4
 * billing-service's granted, charged and returned totals, [5 now].
 * Adopts a line billing-service has lent that the store does not know whole (billing's granted
 * total is beyond the store's, or the store has none: RedisConnection lost it): the totals merged by taking
 * the larger, as ADMIT merges an extension's, and the account put in the active lines (as active
 * now unless it is there already), so that the idle timer gives the line back once idle, as any
 * other. Not while a bill of the account waits for billing-service (its charge would be missing
 * from both charged totals, and the line given back too large): a later look adopts it. Returns
 * {1} when adopted, {0} when the store knows the line or a bill waits.
 */
export const ADOPT_LINE = new LuaScript(
  'adopt_line',
  `${NOW}
local now = now_ms(ARGV[5])
local stored = redis.call('HMGET', KEYS[1], 'gr', 'ch', 'rt')
if tonumber(ARGV[2]) <= (tonumber(stored[1]) or -1) then return {0} end
if redis.call('HLEN', KEYS[3]) > 0 then return {0} end
local fields = {'gr', 'ch', 'rt'}
for i = 1, 3 do
  local given = tonumber(ARGV[1 + i])
  if given > (tonumber(stored[i]) or 0) then redis.call('HSET', KEYS[1], fields[i], given) end
end
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
return {1}
`,
);

/** BILL_STATES' answers. */
export const BILL_STATE_REPLY = { unfinished: 0, pending: 1, applied: 2 } as const;

/**
 * KEYS: pairs of (finished zset, unbilled hash), one pair per request. ARGV: 1 finish memory ms,
 * then one request id per pair, [then now]. Where each finished request's bill stands, in order:
 * 0 not finished (the store has no trace of its finish), 1 finished and its bill waiting for
 * billing-service, 2 finished and its bill applied (or none). One call answers a whole batch of
 * renewals (per shard in the shard layout, where every pair is in the shard's slot).
 */
export const BILL_STATES = new LuaScript(
  'bill_states',
  `${NOW}
local n = #KEYS / 2
local now = now_ms(ARGV[n + 2])
local memory = tonumber(ARGV[1])
local states = {}
for i = 1, n do
  local id = ARGV[i + 1]
  local finished = tonumber(redis.call('ZSCORE', KEYS[2 * i - 1], id))
  if not finished or now - finished >= memory then states[i] = 0
  elseif redis.call('HEXISTS', KEYS[2 * i], id) == 1 then states[i] = 1
  else states[i] = 2 end
end
return states
`,
);

/** KEYS: credit hash. Returns {gr, ch, rt, hd}. */
export const READ_CREDIT = new LuaScript(
  'read_credit',
  `
local stored = redis.call('HMGET', KEYS[1], 'gr', 'ch', 'rt', 'hd')
local t = {}
for i = 1, 4 do t[i] = tonumber(stored[i]) or 0 end
return t
`,
);

/** SCRIPT LOAD of every admission script, on each new connection. */
export async function loadAdmissionScripts(redis: RedisConnection): Promise<void> {
  await Promise.all(
    [ADMIT, FINISH_ADMITTED, RETURN_LINE, IDLE_LINES, RESURRECT_LEASE, ADOPT_LINE, BILL_STATES, READ_CREDIT].map((script) =>
      script.load(redis),
    ),
  );
}
