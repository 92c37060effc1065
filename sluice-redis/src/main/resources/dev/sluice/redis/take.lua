-- One rate-limit decision, atomically: the token bucket of dev.sluice.policy.TokenBucket (a generic
-- cell rate algorithm) on Redis's own clock, so that every gateway sharing this Redis shares one clock.
-- KEYS[1]: the bucket; ARGV[1]: microseconds between two tokens; ARGV[2]: the bucket's capacity.
-- The key holds the theoretical arrival time (the instant the bucket is full again), in microseconds,
-- and expires when the bucket is full: an idle key costs nothing.
-- Returns {admitted (1 or 0), tokens left, microseconds until a token is there (0 when admitted),
-- microseconds until the bucket is full}.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval = tonumber(ARGV[1])
local window = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then
  tat = now
end
local next = tat + interval
local wait = next - now - window
if wait > 0 then
  return {0, 0, math.ceil(wait), math.ceil(tat - now)}
end
redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.ceil((next - now) / 1000) + 1)
return {1, math.floor((window - (next - now)) / interval), 0, math.ceil(next - now)}
