/**
 * Lua: `now_ms(arg)` is the time in ms, from Redis TIME, so that the clocks of the replicas do
 * not matter; or `arg` when given, which is how tests drive the clock (the last argument).
 */
export const NOW = `
local function now_ms(arg)
  local given = tonumber(arg)
  if given then return given end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;
