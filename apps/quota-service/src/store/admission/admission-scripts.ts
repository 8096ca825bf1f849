import type { RedisConnection } from '../redis/redis-connection';
import { BUDGET } from '../free-tier/free-tier-scripts';
import { ADD_USAGE, LIVE_PLACES, MINUTE_COUNT, PLACE_OWNER } from '../limits/limit-scripts';
import { NOW } from '../redis/lua-clock';
import { defineScript } from '../redis/lua-script';
import { OUTBOX_FIELD } from '../outbox/redis-bill-outbox';
import { PREVIOUS_RELEASE_HOLDS } from './previous-release-holds';

/*
 * The admission of API requests, one script per step. Every key is declared (none is built
 * here), all in one hash slot in the shard layout (store/redis/redis-keys.ts): the account's keys and its
 * shard's leases, outbox and active lines. The time is Redis TIME unless a test clock is passed
 * (`clock`). Amounts are integer micro-LYD, exact in Lua's doubles up to 2^53.
 */

/** ADMIT's answers (the first number of its reply). */
export const ADMIT_REPLY = { admitted: 1, rateLimited: 2, notCovered: 3, noPlace: 4, gone: 5 } as const;

/**
 * Keys: the minute hash, the places hash, the last-grant string, the credit hash {gr, ch, rt,
 * hd}, the finished zset, the shard's lease lapse zset and lease data hash, its active lines
 * zset, the unbilled hash and the admissions hash (the record of each running request, a paid
 * one's hold in it). `mode` is 'count' or 'nocount', `payment` 'paid' or 'free';
 * `merge_granted`, `merge_charged` and `merge_returned` are totals to merge ('' for none);
 * `terms_json` is the admission record without its time.
 * In this order, all or nothing: a request id leased already answers admitted again (not counted
 * again); the count (a refusal writes nothing); a finished id answers gone; a paid request needs
 * gr - ch - rt - hd >= worst after the merge (a line the store lost, no gr, while bills it queued
 * again wait: billing's totals judged with ch added to billing's, not kept, as ADOPT_LINE says
 * why); a place (as ACQUIRE_PLACE); then the hold (in hd, and in the record), the place, the last
 * grant, the lease, the active-lines entry and the admission record (the terms with admittedAtMs
 * = now) are written together.
 * Returns {1, count, now, repeated 0/1, repeated: hold or -1, admitted ms (a repeat's: its
 * record's, else now)} | {2|4|5, count, now} | {3, count, now, gr, ch, rt, hd}.
 */
export const ADMIT = defineScript('admit', {
  keys: [
    'minute',
    'places',
    'last_grant',
    'credit',
    'finished',
    'lease_lapse',
    'lease_data',
    'active_lines',
    'unbilled',
    'admissions',
    'previous_holds',
  ],
  args: [
    'rid',
    'account',
    'mode',
    'per_minute',
    'place_limit',
    'recovery_ms',
    'lease_ttl',
    'payment',
    'worst_micro',
    'merge_granted',
    'merge_charged',
    'merge_returned',
    'lease_json',
    'memory_ms',
    'terms_json',
  ],
  uses: `${NOW}${LIVE_PLACES}${MINUTE_COUNT}${PREVIOUS_RELEASE_HOLDS}`,
  body: `
local now = now_ms(clock)
if redis.call('HEXISTS', lease_data, rid) == 1 then
  local record = redis.call('HGET', admissions, rid)
  local r = record and cjson.decode(record) or {}
  local held = r.hold and r.hold.amountMicro or previous_release_hold(previous_holds, rid) or -1
  return {1, minute_count(minute, now), now, 1, held, r.admittedAtMs or now}
end
local count = minute_count(minute, now)
if mode == 'count' then
  if count >= tonumber(per_minute) then return {2, count, now} end
  count = count_one(minute, count, now)
end
local finished = tonumber(redis.call('ZSCORE', finished, rid))
if finished and now - finished < tonumber(memory_ms) then return {5, count, now} end
local paid = payment == 'paid'
local worst = tonumber(worst_micro)
if paid then
  local stored = redis.call('HMGET', credit, 'gr', 'ch', 'rt', 'hd')
  local t = {}
  for i = 1, 4 do t[i] = tonumber(stored[i]) or 0 end
  local lost = not stored[1] and redis.call('HLEN', unbilled) > 0
  local fields = {'gr', 'ch', 'rt'}
  local merges = {merge_granted, merge_charged, merge_returned}
  for i = 1, 3 do
    local given = tonumber(merges[i])
    if given and lost then
      if i == 2 then t[i] = t[i] + given elseif given > t[i] then t[i] = given end
    elseif given and given > t[i] then
      t[i] = given
      redis.call('HSET', credit, fields[i], given)
      if i == 1 then redis.call('ZADD', active_lines, now, account) end
    end
  end
  if t[1] - t[2] - t[3] - t[4] < worst then return {3, count, now, t[1], t[2], t[3], t[4]} end
end
local recovery = tonumber(recovery_ms)
live_places(places, last_grant, now, recovery)
if redis.call('HLEN', places) >= tonumber(place_limit) then return {4, count, now} end
if paid then
  redis.call('HINCRBY', credit, 'hd', worst)
  redis.call('ZADD', active_lines, now, account)
  hold_for_previous_release(previous_holds, admissions, rid, worst)
end
redis.call('HSET', places, rid, now)
redis.call('PEXPIRE', places, recovery)
redis.call('SET', last_grant, now, 'PX', recovery)
redis.call('ZADD', lease_lapse, now + tonumber(lease_ttl), rid)
redis.call('HSET', lease_data, rid, lease_json)
redis.call('HSET', admissions, rid, string.sub(terms_json, 1, -2) .. ',"admittedAtMs":' .. string.format('%.0f', now) .. '}')
return {1, count, now, 0, -1, now}
`,
});

/**
 * Keys: the places hash, the last-grant string, usage today and total, the finished zset, the
 * credit hash, the shard's lease lapse zset, lease data hash and outbox stream, the account's free
 * allowance (budget, holds, expiry), the lapse estimates {request id: charge, request id +
 * ':tokens': tokens, request id + ':terms': its admission record}, the unbilled hash and the
 * admissions hash. `admitted` is 1 or 0, `bill_json` the bill or '', `usage` 'lapse' (the reaper's
 * estimate at the end of the grace), 'real' (usage the provider reported) or ''; `said_payment`,
 * `said_model`, `said_hold` (amount, input and output prices, space-separated) and `said_at` the
 * terms the caller restated, each '' when not restated (`said_payment` '': none to check).
 * Once per request id (a repeat changes nothing): the request's hold (its admission record's)
 * leaves hd, its place is freed (when the edge took it: the chat product's place under the same
 * id stays) and its lease ended; admitted: the usage counted, then paid: the charge added to ch,
 * free: the allowance settled with the tokens; the bill appended. Not admitted: the allowance
 * reservation is returned whole and nothing else happens (the id stays finished). The admission
 * record goes with the finish, but an estimate's, which moves beside the estimate for the real
 * bill correcting it to read. The one repeat that
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
 * bill without its admitted time gets the record's, and one without a key the record's key. A record that holds only a hold (a lease
 * recreated, RESURRECT_LEASE) fixes no terms. Finished ids over the memory are trimmed now and
 * then (readers compare the time they were finished). Returns {released 0/1, repeated 0/1,
 * shortfall micro, refused 0-5}.
 */
export const FINISH_ADMITTED = defineScript('finish_admitted', {
  keys: [
    'places',
    'last_grant',
    'today',
    'total',
    'finished',
    'credit',
    'lease_lapse',
    'lease_data',
    'outbox',
    'free_budget',
    'free_holds',
    'free_expiry',
    'lapse_estimates',
    'unbilled',
    'admissions',
    'previous_holds',
  ],
  args: [
    'rid',
    'tokens_used',
    'recovery',
    'memory_ms',
    'payment',
    'admitted',
    'charge_micro',
    'bill_json',
    'usage',
    'said_payment',
    'said_model',
    'said_hold',
    'said_at',
  ],
  uses: `${NOW}${LIVE_PLACES}${ADD_USAGE}${BUDGET}${PLACE_OWNER}${PREVIOUS_RELEASE_HOLDS}`,
  body: `
local now = now_ms(clock)
local memory = tonumber(memory_ms)
local bill = bill_json
local record = redis.call('HGET', admissions, rid)
-- No running record: an estimate's, kept beside it.
local kept = not record and redis.call('HGET', lapse_estimates, rid .. ':terms')
local r = (record or kept) and cjson.decode(record or kept)
local terms = r and r.payment and r
if terms and said_payment ~= '' then
  if terms.payment ~= said_payment then return {0, 0, 0, 1} end
  if terms.model ~= said_model then return {0, 0, 0, 2} end
  if said_hold ~= '' then
    if type(terms.hold) ~= 'table' then return {0, 0, 0, 3} end
    local amount, input, output = string.match(said_hold, '^(%d+) (%d+) (%d+)$')
    if terms.hold.amountMicro ~= tonumber(amount) or terms.hold.inputMicroPerMillion ~= tonumber(input)
      or terms.hold.outputMicroPerMillion ~= tonumber(output) then return {0, 0, 0, 3} end
  end
  if said_at ~= '' and tonumber(said_at) ~= terms.admittedAtMs then return {0, 0, 0, 4} end
end
if admitted == '0' then
  local renewed = redis.call('HGET', lease_data, rid)
  if renewed and string.find(renewed, '"admittedAtMs":', 1, true) then return {0, 0, 0, 5} end
end
if terms and terms.admittedAtMs and bill ~= '' and not string.find(bill, '"admittedAtMs":', 1, true) then
  bill = string.sub(bill, 1, -2) .. ',"admittedAtMs":' .. string.format('%.0f', terms.admittedAtMs) .. '}'
end
-- The key is a term of the admission too (its characters checked at Admit).
if terms and terms.keyId and bill ~= '' and not string.find(bill, '"keyId":', 1, true) then
  bill = string.sub(bill, 1, -2) .. ',"keyId":"' .. terms.keyId .. '"}'
end
local function queue_bill()
  redis.call('XADD', outbox, '*', '${OUTBOX_FIELD}', bill)
  redis.call('HSET', unbilled, rid, 1)
end
local charge = tonumber(charge_micro)
local tokens = tonumber(tokens_used)
if now % 16 == 0 then redis.call('ZREMRANGEBYSCORE', finished, '-inf', now - memory) end
-- Marks the id finished unless it is already, less than the memory ago (NX: a repeat writes nothing there).
local first = redis.call('ZADD', finished, 'NX', now, rid) == 1
if not first and now - tonumber(redis.call('ZSCORE', finished, rid)) >= memory then
  redis.call('ZADD', finished, now, rid)
  first = true
end
if not first then
  local estimated = usage == 'real' and tonumber(redis.call('HGET', lapse_estimates, rid))
  if not estimated then return {0, 1, 0, 0} end
  local estimated_tokens = redis.call('HGET', lapse_estimates, rid .. ':tokens')
  redis.call('HDEL', lapse_estimates, rid, rid .. ':tokens', rid .. ':terms')
  -- The previous release kept an estimate's record in the admissions hash.
  if record then redis.call('HDEL', admissions, rid) end
  if estimated_tokens then add_usage(today, total, tokens - tonumber(estimated_tokens), now) end
  local shortfall = 0
  if payment == 'paid' and charge > estimated then
    local line = redis.call('HMGET', credit, 'gr', 'ch', 'rt', 'hd')
    local unheld = (tonumber(line[1]) or 0) - (tonumber(line[2]) or 0) - (tonumber(line[3]) or 0)
    local more = charge - estimated
    shortfall = more - math.min(more, math.max(unheld - (tonumber(line[4]) or 0), 0))
    local extended = math.max(more - unheld, 0)
    if extended > 0 then redis.call('HINCRBY', credit, 'gr', extended) end
    redis.call('HINCRBY', credit, 'ch', more)
  end
  if bill_json ~= '' then queue_bill() end
  return {0, 1, shortfall, 0}
end
redis.call('PEXPIRE', finished, memory)
local held = release_previous_hold(previous_holds, rid, record and r.hold and r.hold.amountMicro)
if held then redis.call('HINCRBY', credit, 'hd', -held) end
local released = 0
if live_places(places, last_grant, now, tonumber(recovery)) and not another_callers(places, rid, 'edge') then released = redis.call('HDEL', places, rid) end
redis.call('ZREM', lease_lapse, rid)
redis.call('HDEL', lease_data, rid)
if record then redis.call('HDEL', admissions, rid) end
if kept then redis.call('HDEL', lapse_estimates, rid .. ':terms') end
if admitted == '0' then
  settle_budget(free_budget, free_holds, free_expiry, rid, 0, now)
  return {released, 0, 0, 0}
end
add_usage(today, total, tokens, now)
if payment == 'paid' then
  if charge > 0 then redis.call('HINCRBY', credit, 'ch', charge) end
else
  settle_budget(free_budget, free_holds, free_expiry, rid, tokens, now)
end
if usage == 'lapse' then
  if record and terms then
    redis.call('HSET', lapse_estimates, rid, charge, rid .. ':tokens', tokens, rid .. ':terms', record)
  else
    redis.call('HSET', lapse_estimates, rid, charge, rid .. ':tokens', tokens)
  end
  redis.call('PEXPIRE', lapse_estimates, memory)
end
if bill_json ~= '' then queue_bill() end
return {released, 0, 0, 0}
`,
});

/**
 * `account_json`: the account id as a JSON string; `idle_ms`: '' when forced.
 * Gives back gr - ch - rt - hd when positive (added to rt; the new rt queued as a line return),
 * with idle ms only if the account's last admission or grant is that old. The account leaves the
 * active lines once hd is 0. Returns {returned, hd, rt}.
 */
export const RETURN_LINE = defineScript('return_line', {
  keys: ['credit', 'active_lines', 'outbox'],
  args: ['account', 'account_json', 'idle_ms'],
  uses: NOW,
  body: `
local now = now_ms(clock)
local stored = redis.call('HMGET', credit, 'gr', 'ch', 'rt', 'hd')
local gr, ch, rt, hd = tonumber(stored[1]) or 0, tonumber(stored[2]) or 0, tonumber(stored[3]) or 0, tonumber(stored[4]) or 0
if idle_ms ~= '' then
  local last = tonumber(redis.call('ZSCORE', active_lines, account))
  if not last or now - last < tonumber(idle_ms) then return {0, hd, rt} end
end
local returned = gr - ch - rt - hd
if returned > 0 then
  rt = redis.call('HINCRBY', credit, 'rt', returned)
  local record = '{"kind":"return","accountId":' .. account_json .. ',"returnedTotalMicro":' .. string.format('%.0f', rt) .. '}'
  redis.call('XADD', outbox, '*', '${OUTBOX_FIELD}', record)
else
  returned = 0
end
if hd <= 0 then redis.call('ZREM', active_lines, account) end
return {returned, hd, rt}
`,
});

/**
 * `hold_micro`: '' for none.
 * Recreates a lease the store lost, unless its id was finished (0) or is leased (1). A paid
 * request's hold is held again in its account's line (unless the store still has its admission
 * record, which holds it), since billing-service lent that money and the request will be charged
 * from it: so that the line is never given back, nor lent again to another request, while the
 * request holds it. The hold is kept in a record of its own, which fixes no terms (the request's
 * are lost with its record). Returns {2} when recreated.
 */
export const RESURRECT_LEASE = defineScript('resurrect_lease', {
  keys: ['finished', 'lease_lapse', 'lease_data', 'credit', 'admissions', 'active_lines', 'previous_holds'],
  args: ['rid', 'lease_ttl', 'lease_json', 'memory_ms', 'hold_micro', 'account'],
  uses: `${NOW}${PREVIOUS_RELEASE_HOLDS}`,
  body: `
local now = now_ms(clock)
local finished = tonumber(redis.call('ZSCORE', finished, rid))
if finished and now - finished < tonumber(memory_ms) then return {0} end
if redis.call('HEXISTS', lease_data, rid) == 1 then return {1} end
redis.call('ZADD', lease_lapse, now + tonumber(lease_ttl), rid)
redis.call('HSET', lease_data, rid, lease_json)
local hold = tonumber(hold_micro)
if hold and not previous_release_hold(previous_holds, rid)
  and redis.call('HSETNX', admissions, rid, '{"hold":{"amountMicro":' .. string.format('%.0f', hold) .. '}}') == 1 then
  redis.call('HINCRBY', credit, 'hd', hold)
  redis.call('ZADD', active_lines, now, account)
  hold_for_previous_release(previous_holds, admissions, rid, hold)
end
return {2}
`,
});

/**
 * `granted`, `charged`, `returned`: billing-service's totals.
 * Adopts a line billing-service has lent that the store does not know whole (billing's granted
 * total is beyond the store's, or the store has none: RedisConnection lost it): the totals merged by taking
 * the larger, as ADMIT merges an extension's, and the account put in the active lines (as active
 * now unless it is there already), so that the idle timer gives the line back once idle, as any
 * other. Not while a bill of the account waits for billing-service (its charge would be missing
 * from both charged totals, and the line given back too large): a later look adopts it. Returns
 * {1} when adopted, {0} when the store knows the line or a bill waits.
 */
export const ADOPT_LINE = defineScript('adopt_line', {
  keys: ['credit', 'active_lines', 'unbilled'],
  args: ['account', 'granted', 'charged', 'returned'],
  uses: NOW,
  body: `
local now = now_ms(clock)
local stored = redis.call('HMGET', credit, 'gr', 'ch', 'rt')
if tonumber(granted) <= (tonumber(stored[1]) or -1) then return {0} end
if redis.call('HLEN', unbilled) > 0 then return {0} end
local fields = {'gr', 'ch', 'rt'}
local totals = {granted, charged, returned}
for i = 1, 3 do
  local given = tonumber(totals[i])
  if given > (tonumber(stored[i]) or 0) then redis.call('HSET', credit, fields[i], given) end
end
redis.call('ZADD', active_lines, 'NX', now, account)
return {1}
`,
});

/** BILL_STATES' answers. */
export const BILL_STATE_REPLY = { unfinished: 0, pending: 1, applied: 2 } as const;

/**
 * `request_keys`: pairs of (finished zset, unbilled hash), one pair per request; `request_ids`: one
 * request id per pair (then the test clock). Where each finished request's bill stands, in order:
 * 0 not finished (the store has no trace of its finish), 1 finished and its bill waiting for
 * billing-service, 2 finished and its bill applied (or none). One call answers a whole batch of
 * renewals (per shard in the shard layout, where every pair is in the shard's slot).
 */
export const BILL_STATES = defineScript('bill_states', {
  keys: [],
  restKeys: 'request_keys',
  args: ['memory_ms'],
  restArgs: 'request_ids',
  uses: NOW,
  body: `
local n = #request_keys / 2
local now = now_ms(request_ids[n + 1])
local memory = tonumber(memory_ms)
local states = {}
for i = 1, n do
  local id = request_ids[i]
  local finished = tonumber(redis.call('ZSCORE', request_keys[2 * i - 1], id))
  if not finished or now - finished >= memory then states[i] = 0
  elseif redis.call('HEXISTS', request_keys[2 * i], id) == 1 then states[i] = 1
  else states[i] = 2 end
end
return states
`,
});

/** Returns {gr, ch, rt, hd}. */
export const READ_CREDIT = defineScript('read_credit', {
  keys: ['credit'],
  args: [],
  body: `
local stored = redis.call('HMGET', credit, 'gr', 'ch', 'rt', 'hd')
local t = {}
for i = 1, 4 do t[i] = tonumber(stored[i]) or 0 end
return t
`,
});

/** A request's admission record: its running request's, else the one kept beside its lapse estimate. Returns it, or nil. */
export const READ_TERMS = defineScript('read_terms', {
  keys: ['admissions', 'lapse_estimates'],
  args: ['rid'],
  body: `
return redis.call('HGET', admissions, rid) or redis.call('HGET', lapse_estimates, rid .. ':terms')
`,
});

/** SCRIPT LOAD of every admission script, on each new connection. */
export async function loadAdmissionScripts(redis: RedisConnection): Promise<void> {
  await Promise.all(
    [ADMIT, FINISH_ADMITTED, RETURN_LINE, RESURRECT_LEASE, ADOPT_LINE, BILL_STATES, READ_CREDIT, READ_TERMS].map((script) =>
      script.load(redis),
    ),
  );
}
