package fleet

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
)

// reserveLua is reserve's source. It takes cost units on each of one or
// two buckets, and with them the extra units of a lease when every
// bucket has room for them now. The buckets are fields of the hash
// KEYS[1], each holding its theoretical arrival time (TAT) in
// microseconds of Redis's clock. ARGV: the number of buckets (1 or 2),
// then per bucket its field, microseconds per unit, burst, cost and
// extra; then, when the hash is a breaker's, its interval and timeout,
// else the hash expires when its TATs are past.
//
// It returns {-1} when a cost exceeds its burst, else {wait in
// microseconds, 1 if the lease was taken else 0} and, when the hash is
// a breaker's, the breaker's state: {state 0, generation, microseconds
// to expiry or -1} when it is closed and does not expire now (the
// common case: the state is read, not decoded nor written), else the
// reply of readBreaker (breakerLua), the state having moved on.
//
// It is written for Redis's cost per call: one TIME, one HMGET and one
// HSET of one key, the counts read only when the state must move on,
// numbers written as numbers (Redis keeps 17 significant digits), no
// table built per call on the common path, and breakerLua's functions
// defined only on the path that needs them.
const reserveLua = `
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local two = ARGV[1] == '2'
local f1, i1, b1, c1, x1 = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local f2, i2, b2, c2, x2, k = nil, 0, 0, 0, 0, 7
if two then
  f2, i2, b2, c2, x2, k = ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), 12
end
if c1 > b1 or c2 > b2 then return {-1} end
local paired = ARGV[k] ~= nil
local v, j
if paired then
  if two then v = redis.call('HMGET', KEYS[1], 's', 'g', 'e', f1, f2)
  else v = redis.call('HMGET', KEYS[1], 's', 'g', 'e', f1) end
  j = 4
else
  if two then v = redis.call('HMGET', KEYS[1], f1, f2) else v = redis.call('HMGET', KEYS[1], f1) end
  j = 1
end
local t1, t2 = tonumber(v[j]) or now, now
if t1 < now then t1 = now end
if two then
  t2 = tonumber(v[j + 1]) or now
  if t2 < now then t2 = now end
end
local lease = (x1 > 0 or x2 > 0) and t1 + (c1 + x1 - b1) * i1 <= now and t2 + (c2 + x2 - b2) * i2 <= now
if lease then c1, c2 = c1 + x1, c2 + x2 end
t1, t2 = t1 + c1 * i1, t2 + c2 * i2
local wait = math.ceil(math.max(0, t1 - b1 * i1 - now, t2 - b2 * i2 - now))
local taken = lease and 1 or 0
local s, e = v[1], v[3]
if not paired or s == '0' and (e == '0' or now < tonumber(e)) then
  if two then redis.call('HSET', KEYS[1], f1, t1, f2, t2) else redis.call('HSET', KEYS[1], f1, t1) end
  if not paired then
    redis.call('PEXPIREAT', KEYS[1], math.ceil(math.max(t1, t2) / 1000) + 1)
    return {wait, taken}
  end
  local ttl = -1
  if e ~= '0' then ttl = tonumber(e) - now end
  return {wait, taken, 0, tonumber(v[2]), ttl}
end
` + breakerLua + `
local b = load(KEYS[1], now, tonumber(ARGV[k]), tonumber(ARGV[k + 1]))
local kv = {f1, t1}
if two then kv[3], kv[4] = f2, t2 end
redis.call('HSET', KEYS[1], unpack(encode(b, kv)))
local out = {wait, taken}
for _, x in ipairs(reply(b, now, {})) do out[#out + 1] = x end
return out`

// reserve runs reserveLua.
var reserve = redis.NewScript(reserveLua)

// reserveReply is a reply of reserve, read at local time at.
type reserveReply struct {
	tooLarge bool
	wait     time.Duration
	leased   bool
	state    *sharedState // the breaker's, when the hash is a breaker's
}

// parseReserve reads a reply of reserve, received at local time at.
func parseReserve(v []int64, at time.Time) (reserveReply, error) {
	switch {
	case len(v) == 1 && v[0] == -1:
		return reserveReply{tooLarge: true}, nil
	case len(v) == 2 || len(v) >= 5:
	default:
		return reserveReply{}, fmt.Errorf("malformed reply %v", v)
	}
	r := reserveReply{wait: time.Duration(v[0]) * time.Microsecond, leased: v[1] == 1}
	switch {
	case len(v) == 5:
		s := sharedState{state: gobreaker.State(v[2]), gen: v[3]}
		if v[4] >= 0 {
			s.expiry = at.Add(time.Duration(v[4]) * time.Microsecond)
		}
		r.state = &s
	case len(v) > 5:
		vals := make([]any, len(v)-2)
		for i, x := range v[2:] {
			vals[i] = x
		}
		s, err := parseState(vals, at)
		if err != nil {
			return reserveReply{}, err
		}
		r.state = &s
	}
	return r, nil
}

// refund gives cost units back on every bucket (the ARGV of reserve,
// without the breaker's and the extra, then 1 when the hash is the
// limit's own, 0 when it is a breaker's), or charges them when negative
// (Limiter.Settle): a charge starts from now when the bucket's TAT is
// past, as a reservation does, and moves the expiry of a hash of the
// limit's own (a breaker's does not expire) past the TAT.
var refund = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local nb = tonumber(ARGV[1])
local want = {}
for i = 1, nb do want[i] = ARGV[4*i-2] end
local v = redis.call('HMGET', KEYS[1], unpack(want))
local kv, last = {}, now
for i = 1, nb do
  local tat, c, iv = tonumber(v[i]), tonumber(ARGV[4*i+1]), tonumber(ARGV[4*i-1])
  local new = nil
  if c < 0 then new = math.max(tat or now, now) - c * iv
  elseif c > 0 and tat then new = math.max(tat - c * iv, now) end
  if new then
    kv[#kv + 1] = ARGV[4*i-2]
    kv[#kv + 1] = new
    if new > last then last = new end
  end
end
if #kv == 0 then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(kv))
if ARGV[4*nb+2] == '1' and (ttl < 0 or now / 1000 + ttl < last / 1000) then
  redis.call('PEXPIREAT', KEYS[1], math.ceil(last / 1000) + 1)
end
return 0`)
