package redis

import goredis "github.com/redis/go-redis/v9"

// Every write is one Lua script: atomic on the server and one round trip
// (EVALSHA; EVAL once more after a server restart flushed the script cache).
// Each script is idempotent, so replaying it after a lost reply is safe.

// appendScript appends an entry, or replaces the entry with its id in place
// when the id is among the loop's ids (both lists are trimmed in step, so
// their indexes agree); it trims both lists to the cap and sets their TTL
// (PERSIST when none).
//
//	KEYS[1] past_loops  KEYS[2] past_loop_ids
//	ARGV[1] entry id    ARGV[2] entry JSON    ARGV[3] cap    ARGV[4] TTL ms (0: none)
//
// Returns 1 when appended, 0 when an entry was replaced.
var appendScript = goredis.NewScript(`
local ttl = tonumber(ARGV[4])
local function expire()
  for i = 1, 2 do
    if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
  end
end
local pos = redis.call('LPOS', KEYS[2], ARGV[1])
if pos then
  redis.call('LSET', KEYS[1], pos, ARGV[2])
  expire()
  return 0
end
local cap = tonumber(ARGV[3])
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[1], -cap, -1)
redis.call('LTRIM', KEYS[2], -cap, -1)
expire()
return 1
`)

// saveCheckpointScript merges state fields into a run's checkpoint hash
// unless the stored digest differs, or the save is fenced by a lease that
// another holder has.
//
//	KEYS[1] checkpoint  KEYS[2] lease
//	ARGV[1] digest  ARGV[2] updated_at  ARGV[3] TTL ms (0: none)  ARGV[4] holder ("": not fenced)
//	ARGV[5..] field, value, ...
//
// Returns {1, digest} when saved, {0, stored digest} on a mismatch, {2,
// holder} when another holder has the lease.
var saveCheckpointScript = goredis.NewScript(`
if ARGV[4] ~= '' then
  local h = redis.call('GET', KEYS[2])
  if h and h ~= ARGV[4] then
    return {2, h}
  end
end
local cur = redis.call('HGET', KEYS[1], 'digest')
if cur and cur ~= ARGV[1] then
  return {0, cur}
end
redis.call('HSET', KEYS[1], 'digest', ARGV[1], 'updated_at', ARGV[2])
for i = 5, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) else redis.call('PERSIST', KEYS[1]) end
return {1, ARGV[1]}
`)

// takeLeaseScript gives a run's lease to a holder unless another live
// holder has it (a stale holder named by the caller does not count).
//
//	KEYS[1] lease
//	ARGV[1] holder  ARGV[2] stale holder ("": none)  ARGV[3] TTL ms
//
// Returns {1} when taken or renewed, {0, holder, PTTL ms} when refused.
var takeLeaseScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] and cur ~= ARGV[2] then
  return {0, cur, redis.call('PTTL', KEYS[1])}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return {1}
`)

// releaseLeaseScript deletes a run's lease when the holder has it.
//
//	KEYS[1] lease  ARGV[1] holder
var releaseLeaseScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

// rememberScript stores a memory: it drops expired memories, writes the
// memory, drops the oldest beyond the cap and sets the three keys' TTL to
// the latest expiry (PERSIST when a memory never expires).
//
//	KEYS[1] memories (hash)  KEYS[2] created (zset)  KEYS[3] expires (zset)
//	ARGV[1] id  ARGV[2] memory JSON  ARGV[3] created ms  ARGV[4] expires ms or "+inf"
//	ARGV[5] now ms  ARGV[6] cap
var rememberScript = goredis.NewScript(`
local now = tonumber(ARGV[5])
local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(dead) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
local cap = tonumber(ARGV[6])
local n = redis.call('ZCARD', KEYS[2])
if n > cap then
  local old = redis.call('ZRANGE', KEYS[2], 0, n - cap - 1)
  for _, id in ipairs(old) do
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
end
local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
local forever = last[2] == 'inf' or last[2] == '+inf'
for i = 1, 3 do
  if forever then
    redis.call('PERSIST', KEYS[i])
  else
    redis.call('PEXPIRE', KEYS[i], math.max(1, math.ceil(tonumber(last[2]) - now)))
  end
end
return 1
`)

// swapStateScript sets one state field of a run's checkpoint hash when it
// holds the expected value, in one step (an answer to a waiting run wins
// exactly once).
//
//	KEYS[1] checkpoint
//	ARGV[1] field  ARGV[2] old present (1/0)  ARGV[3] old  ARGV[4] new present (1/0)  ARGV[5] new  ARGV[6] updated_at
//
// Returns 1 when the field holds the new value (now or already), 0 otherwise
// (also when the checkpoint does not exist).
var swapStateScript = goredis.NewScript(`
if redis.call('HEXISTS', KEYS[1], 'digest') == 0 then
  return 0
end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[4] == '1' then
  if cur == ARGV[5] then return 1 end
else
  if not cur then return 1 end
end
if ARGV[2] == '1' then
  if cur ~= ARGV[3] then return 0 end
else
  if cur then return 0 end
end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[5], 'updated_at', ARGV[6])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HSET', KEYS[1], 'updated_at', ARGV[6])
end
return 1
`)
