package fleet

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
)

// breakerLua is the shared breaker's state machine, run inside Redis by
// the scripts below, so that every read-modify-write of the state is
// atomic across the fleet. The state is a hash: s (0 closed, 1
// half-open, 2 open, as gobreaker.State), g (generation: outcomes of
// requests allowed in an earlier one are dropped), e (expiry in
// microseconds of Redis's clock, 0 for none: the end of an open state,
// of a closed state's Interval, or of a half-open state's wait for its
// probes), gobreaker's counts r, ts, tf, cs, cf, and p, the probes a
// half-open state let through whose places are taken. Times are Redis's
// clock, so replicas' clocks need not agree.
//
// A half-open state lets MaxRequests probes through in the whole fleet,
// as gobreaker does in one process: a probe takes a place (probeBreaker),
// and one whose outcome the breaker leaves out gives it back. A probe
// that is never heard of (its replica ended) would hold its place for
// good; so the places last a timeout: a half-open state whose probes
// have not decided it within Timeout lets as many through again, in the
// same generation, so that a late probe's outcome still counts. A
// half-open state with no expiry was written by an earlier release,
// which neither takes places nor resets p: it is read as one whose wait
// just began, every place free.
//
// Numbers are written as numbers: Redis keeps their 17 significant
// digits, so microseconds of its clock stay exact.
//
// reply returns {state, generation, microseconds to expiry or -1, r, ts,
// tf, cs, cf, p, n, n states visited (first the one read), extra...}.
const breakerLua = `
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function newgen(b, s, now, interval, timeout)
  if s ~= b.s then table.insert(b.trans, s) end
  b.s, b.g, b.recreated = s, b.g + 1, false
  b.r, b.ts, b.tf, b.cs, b.cf, b.p = 0, 0, 0, 0, 0, 0
  b.e = 0
  if s == 0 and interval > 0 then b.e = now + interval end
  if s ~= 0 then b.e = now + timeout end
  b.dirty = true
end
local fields = {'s', 'g', 'e', 'r', 'ts', 'tf', 'cs', 'cf', 'p'}
-- decode makes the state from the values of fields (v), creating it
-- closed when it is missing and moving it on when it expired.
local function decode(v, now, interval, timeout)
  local b = {trans = {}}
  if not v[1] then
    b.s, b.g = 0, now
    b.trans[1] = 0
    newgen(b, 0, now, interval, timeout)
    b.recreated = true
    return b
  end
  b.s, b.g, b.e = tonumber(v[1]), tonumber(v[2]), tonumber(v[3])
  b.r, b.ts, b.tf = tonumber(v[4]), tonumber(v[5]), tonumber(v[6])
  b.cs, b.cf, b.p = tonumber(v[7]), tonumber(v[8]), tonumber(v[9]) or 0
  b.trans[1] = b.s
  if b.s == 0 and b.e > 0 and now >= b.e then
    newgen(b, 0, now, interval, timeout)
  elseif b.s == 2 and now >= b.e then
    newgen(b, 1, now, interval, timeout)
  elseif b.s == 1 and now >= b.e then
    -- the wait for its probes is over, or an earlier release wrote it
    -- (e 0, p left from an earlier half-open state): places free
    b.p, b.e, b.dirty = 0, now + timeout, true
  end
  return b
end
local function load(key, now, interval, timeout)
  return decode(redis.call('HMGET', key, unpack(fields)), now, interval, timeout)
end
-- encode appends the state's fields and values to out, if it changed.
local function encode(b, out)
  if b.dirty then
    local n = #out
    out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5], out[n + 6] = 's', b.s, 'g', b.g, 'e', b.e
    out[n + 7], out[n + 8], out[n + 9], out[n + 10], out[n + 11], out[n + 12] = 'r', b.r, 'ts', b.ts, 'tf', b.tf
    out[n + 13], out[n + 14], out[n + 15], out[n + 16] = 'cs', b.cs, 'cf', b.cf
    out[n + 17], out[n + 18] = 'p', b.p
  end
  return out
end
local function save(key, b)
  local kv = encode(b, {})
  if #kv > 0 then redis.call('HSET', key, unpack(kv)) end
end
local function reply(b, now, extra)
  local ttl = -1
  if b.e > 0 then ttl = b.e - now end
  local out = {b.s, b.g, ttl, b.r, b.ts, b.tf, b.cs, b.cf, b.p, #b.trans}
  for _, s in ipairs(b.trans) do out[#out + 1] = s end
  for _, x in ipairs(extra) do out[#out + 1] = x end
  return out
end
`

// readBreaker reads the state (KEYS[1]; ARGV: interval and timeout in
// microseconds), creating it closed and moving it on when it expired.
var readBreaker = redis.NewScript(breakerLua + `
local now = now_us()
local b = load(KEYS[1], now, tonumber(ARGV[1]), tonumber(ARGV[2]))
save(KEYS[1], b)
return reply(b, now, {})`)

// recordBreaker adds outcomes to the state (KEYS[1]; ARGV: interval,
// timeout, successes that close a half-open breaker, consecutive
// failures that open a closed one or 0 when the caller decides, k, then
// k pairs of generation and count of probes whose places come back, then
// pairs of generation and count: n > 0 successes, n < 0 failures, in
// order; when the state was missing, the new one takes every
// generation's). When the caller decides, extra holds for every run of failures
// counted while closed the generation, the counts before it and its
// length, for the caller to call tripBreaker with.
var recordBreaker = redis.NewScript(breakerLua + `
local now = now_us()
local interval, timeout = tonumber(ARGV[1]), tonumber(ARGV[2])
local maxreq, threshold = tonumber(ARGV[3]), tonumber(ARGV[4])
local b = load(KEYS[1], now, interval, timeout)
local extra = {}
local k = tonumber(ARGV[5])
for i = 6, 5 + 2 * k, 2 do
  if tonumber(ARGV[i]) == b.g and b.s == 1 then
    b.p, b.dirty = math.max(0, b.p - tonumber(ARGV[i + 1])), true
  end
end
for i = 6 + 2 * k, #ARGV - 1, 2 do
  local g, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  if (g == b.g or b.recreated) and b.s ~= 2 then
    b.dirty = true
    if n > 0 then
      b.r, b.ts, b.cs, b.cf = b.r + n, b.ts + n, b.cs + n, 0
      if b.s == 1 and b.cs >= maxreq then newgen(b, 0, now, interval, timeout) end
    elseif b.s == 1 then
      newgen(b, 2, now, interval, timeout)
    elseif threshold > 0 then
      local k = math.min(-n, threshold - b.cf)
      b.r, b.tf, b.cf, b.cs = b.r + k, b.tf + k, b.cf + k, 0
      if b.cf >= threshold then newgen(b, 2, now, interval, timeout) end
    else
      for _, x in ipairs({b.g, b.r, b.ts, b.tf, b.cs, b.cf, -n}) do extra[#extra + 1] = x end
      b.r, b.tf, b.cf, b.cs = b.r - n, b.tf - n, b.cf - n, 0
    end
  end
end
save(KEYS[1], b)
return reply(b, now, extra)`)

// tripBreaker opens the state (KEYS[1]; ARGV: interval, timeout,
// generation) if it is still closed in that generation.
var tripBreaker = redis.NewScript(breakerLua + `
local now = now_us()
local interval, timeout = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = load(KEYS[1], now, interval, timeout)
if b.s == 0 and b.g == tonumber(ARGV[3]) then newgen(b, 2, now, interval, timeout) end
save(KEYS[1], b)
return reply(b, now, {})`)

// probeBreaker takes a probe's place in a half-open state (KEYS[1];
// ARGV: interval, timeout, probes a half-open state lets through), if
// one is left. extra is {1} when a place was taken, else {0}.
var probeBreaker = redis.NewScript(breakerLua + `
local now = now_us()
local b = load(KEYS[1], now, tonumber(ARGV[1]), tonumber(ARGV[2]))
local taken = 0
if b.s == 1 and b.p < tonumber(ARGV[3]) then
  b.p, b.dirty, taken = b.p + 1, true, 1
end
save(KEYS[1], b)
return reply(b, now, {taken})`)

// sharedState is a reply of the breaker scripts, read at a local time.
type sharedState struct {
	state  gobreaker.State
	gen    int64
	expiry time.Time // local time; zero when the state does not expire
	counts gobreaker.Counts
	probes int64 // places taken by a half-open state's probes
	// visited are the states the script went through, first the one it
	// read: each step is a state change made by this process.
	visited []gobreaker.State
	extra   []int64
}

// failureRun is a run of failures counted on a closed breaker whose trip
// the caller decides: the generation, the counts before the run, its
// length.
type failureRun struct {
	gen    int64
	counts gobreaker.Counts
	n      uint32
}

// parseState reads a breaker script's reply (from offset off of v),
// received at local time at.
func parseState(v []any, at time.Time) (sharedState, error) {
	ints := make([]int64, len(v))
	for i, x := range v {
		n, ok := x.(int64)
		if !ok {
			return sharedState{}, fmt.Errorf("fleet: breaker state: element %d is %T, want an integer", i, x)
		}
		ints[i] = n
	}
	if len(ints) < 10 || ints[9] < 0 || int64(len(ints)) < 10+ints[9] {
		return sharedState{}, fmt.Errorf("fleet: breaker state: malformed reply %v", ints)
	}
	s := sharedState{
		state: gobreaker.State(ints[0]),
		gen:   ints[1],
		counts: gobreaker.Counts{
			Requests: uint32(ints[3]), TotalSuccesses: uint32(ints[4]), TotalFailures: uint32(ints[5]),
			ConsecutiveSuccesses: uint32(ints[6]), ConsecutiveFailures: uint32(ints[7]),
		},
		probes: ints[8],
	}
	if ints[2] >= 0 {
		s.expiry = at.Add(time.Duration(ints[2]) * time.Microsecond)
	}
	n := int(ints[9])
	for _, x := range ints[10 : 10+n] {
		s.visited = append(s.visited, gobreaker.State(x))
	}
	s.extra = ints[10+n:]
	return s, nil
}

// failureRuns reads the extra of recordBreaker's reply.
func (s sharedState) failureRuns() []failureRun {
	var out []failureRun
	for e := s.extra; len(e) >= 7; e = e[7:] {
		out = append(out, failureRun{gen: e[0], n: uint32(e[6]), counts: gobreaker.Counts{
			Requests: uint32(e[1]), TotalSuccesses: uint32(e[2]), TotalFailures: uint32(e[3]),
			ConsecutiveSuccesses: uint32(e[4]), ConsecutiveFailures: uint32(e[5]),
		}})
	}
	return out
}
