/**
 * The previous release kept each running paid request's hold in a hash of its own
 * (`previousReleaseHolds`, {request id: micro-LYD}) and set an expiry on the admissions hash; this
 * release keeps the hold in the request's admission record, and that hash has no expiry. During a
 * rolling upgrade replicas of both releases admit and finish each other's requests, so, until the
 * release after this one:
 * - a hold made here is also written where the previous release's finish releases it, and the
 *   admissions hash loses the expiry the previous release gave it (else the running records, and
 *   the holds in them, would expire with it);
 * - a finish here releases the previous release's hold of a record that holds none, and removes
 *   the hold's entry there either way; a lease recreated here holds no hold that one still holds.
 * Goes, with `previousReleaseHolds` (redis-keys.ts) and the scripts' `previous_holds` key, in the
 * release after this one.
 */
export const PREVIOUS_RELEASE_HOLDS = `
local function hold_for_previous_release(previous_holds, admissions, rid, amount)
  redis.call('HSET', previous_holds, rid, string.format('%.0f', amount))
  redis.call('PERSIST', admissions)
end
local function previous_release_hold(previous_holds, rid)
  return tonumber(redis.call('HGET', previous_holds, rid))
end
local function release_previous_hold(previous_holds, rid, held)
  if not held then held = previous_release_hold(previous_holds, rid) end
  if held then redis.call('HDEL', previous_holds, rid) end
  return held
end
`;
