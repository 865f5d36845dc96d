package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/tokenpace/tokenpace"
)

// ErrTooLarge is the error of Limiter.Reserve for a request of more tokens
// than the tokens-per-minute limit allows at all.
var ErrTooLarge = errors.New("fleet: request larger than the tokens-per-minute limit")

// Limiter is a rate limit shared by every process that makes one with the
// same name on the same Redis: the requests per second and tokens per
// minute of a tokenpace.Limit count the whole fleet's requests. Set it as
// a tokenpace.Route's Limiter; the Router's budget-aware admission then
// weighs the fleet's queue, not the replica's.
//
// It is the generic cell rate algorithm (GCRA) run by a Lua script on
// Redis, with golang.org/x/time/rate's semantics: Reserve takes capacity
// at once, possibly in the future, and says how long the request must
// wait; cancel gives it back when the request is not sent. (Libraries
// such as github.com/go-redis/redis_rate only admit now or refuse; they
// cannot hold a place for a request that waits, which admission needs.)
// Time is Redis's clock, so replicas' clocks need not agree; the now
// arguments are not used. A reservation is one Redis round trip, which
// also reads the state of the Breaker given WithBreaker; cancel gives the
// capacity back in the background, off the caller's path.
//
// When Redis fails, the Limiter leaves it alone for a back-off window
// (WithRedisBackoff) and reserves meanwhile on a process-local
// golang.org/x/time/rate limiter of the same limit (so each replica
// alone keeps to the fleet's limit), at no cost per call; the error goes
// to WithErrorHandler. After the window the next request tries Redis
// again.
//
// Close waits for the cancellations under way. A Limiter is safe for
// concurrent use.
type Limiter struct {
	rdb     redis.UniversalClient
	cfg     config
	keys    []string // Redis keys of the buckets, then the breaker's, if any
	buckets []bucket // in the order of keys
	gate    *redisGate
	local   localLimit
	refunds sync.WaitGroup
}

// bucket is one GCRA rate: requests per second or tokens per minute.
type bucket struct {
	interval float64 // microseconds per unit
	burst    float64 // units
	tokens   bool    // the cost is the request's tokens, not 1
	// interval and burst as the scripts read them
	intervalArg, burstArg string
}

func newBucket(interval, burst float64, tokens bool) bucket {
	return bucket{interval: interval, burst: burst, tokens: tokens,
		intervalArg: strconv.FormatFloat(interval, 'f', -1, 64), burstArg: strconv.FormatFloat(burst, 'f', -1, 64)}
}

var _ tokenpace.Limiter = (*Limiter)(nil)

// NewLimiter returns the shared limit name on rdb. Every replica must give
// the same name and limit. It does not contact Redis. It fails when l is
// invalid or sets no limit.
func NewLimiter(rdb redis.UniversalClient, name string, l tokenpace.Limit, opts ...Option) (*Limiter, error) {
	if rdb == nil {
		return nil, errors.New("fleet: NewLimiter needs a Redis client")
	}
	if name == "" {
		return nil, errors.New("fleet: NewLimiter needs a name")
	}
	if l.RPS < 0 || math.IsNaN(l.RPS) || math.IsInf(l.RPS, 0) || l.Burst < 0 || l.TPM < 0 {
		return nil, fmt.Errorf("fleet: invalid limit %+v: RPS, Burst and TPM must be finite and not negative", l)
	}
	if l.IsZero() {
		return nil, errors.New("fleet: NewLimiter needs a limit: RPS or TPM")
	}
	lim := &Limiter{rdb: rdb, cfg: newConfig(opts)}
	lim.gate = &redisGate{backoff: lim.cfg.backoff}
	if b := lim.cfg.breaker; b != nil {
		lim.gate = b.gate
	}
	// A hash tag keeps the keys in one Redis Cluster slot, as the
	// script needs.
	base := lim.cfg.prefix + "limit:{" + name + "}:"
	if l.RPS > 0 {
		b := l.Burst
		if b == 0 {
			b = max(1, int(math.Ceil(l.RPS)))
		}
		lim.keys = append(lim.keys, base+"rps")
		lim.buckets = append(lim.buckets, newBucket(1e6/l.RPS, float64(b), false))
		lim.local.rps = rate.NewLimiter(rate.Limit(l.RPS), b)
	}
	if l.TPM > 0 {
		lim.keys = append(lim.keys, base+"tpm")
		lim.buckets = append(lim.buckets, newBucket(60e6/float64(l.TPM), float64(l.TPM), true))
		lim.local.tpm = rate.NewLimiter(rate.Limit(float64(l.TPM)/60), l.TPM)
	}
	if b := lim.cfg.breaker; b != nil {
		lim.keys = append(lim.keys, b.key)
	}
	return lim, nil
}

// reserve takes cost units on every bucket (ARGV: the number of buckets,
// then per bucket microseconds per unit, burst, cost; then, when KEYS
// holds a breaker after the buckets, its interval and timeout) and
// returns {wait in microseconds, the breaker's state as readBreaker
// returns it}, or {-1} when a cost exceeds its burst. A bucket's key
// holds the theoretical arrival time (TAT) in microseconds of Redis's
// clock and expires when it is in the past.
var reserve = redis.NewScript(breakerLua + `
local now = now_us()
local nb = tonumber(ARGV[1])
local wait, tats = 0, {}
for i = 1, nb do
  local interval, burst, cost = tonumber(ARGV[3*i-1]), tonumber(ARGV[3*i]), tonumber(ARGV[3*i+1])
  if cost > burst then return {-1} end
  local tat = tonumber(redis.call('GET', KEYS[i])) or now
  if tat < now then tat = now end
  tats[i] = tat + cost * interval
  local w = tats[i] - burst * interval - now
  if w > wait then wait = w end
end
for i = 1, nb do
  redis.call('SET', KEYS[i], num(tats[i]), 'PX', math.ceil((tats[i] - now) / 1000) + 1)
end
local out = {math.ceil(wait)}
if #KEYS > nb then
  local b = load(KEYS[nb+1], now, tonumber(ARGV[3*nb+2]), tonumber(ARGV[3*nb+3]))
  save(KEYS[nb+1], b)
  for _, x in ipairs(reply(b, now, {})) do out[#out + 1] = x end
end
return out`)

// refund gives cost units back on every bucket (same ARGV as reserve).
var refund = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i = 1, tonumber(ARGV[1]) do
  local tat = tonumber(redis.call('GET', KEYS[i]))
  if tat then
    tat = tat - tonumber(ARGV[3*i+1]) * tonumber(ARGV[3*i-1])
    if tat > now then
      redis.call('SET', KEYS[i], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
    else
      redis.call('DEL', KEYS[i])
    end
  end
end
return 0`)

// argv returns the scripts' arguments for a request of tokens tokens.
func (l *Limiter) argv(tokens int) []any {
	out := make([]any, 0, 3+3*len(l.buckets))
	out = append(out, len(l.buckets))
	for _, b := range l.buckets {
		cost := 1
		if b.tokens {
			cost = max(tokens, 1)
		}
		out = append(out, b.intervalArg, b.burstArg, cost)
	}
	if b := l.cfg.breaker; b != nil {
		out = append(out, b.args...)
	}
	return out
}

// Reserve implements tokenpace.Limiter: it reserves one request and
// tokens tokens on the shared limit and returns the wait, or ErrTooLarge.
// cancel gives the capacity back; it acts once, however often it is
// called.
func (l *Limiter) Reserve(now time.Time, tokens int) (delay time.Duration, cancel func(time.Time), err error) {
	for _, b := range l.buckets {
		if b.tokens && float64(tokens) > b.burst {
			return 0, nil, ErrTooLarge
		}
	}
	if !l.gate.enter(time.Now()) {
		return l.local.reserve(now, tokens)
	}
	argv := l.argv(tokens)
	ctx, stop := context.WithTimeout(context.Background(), l.cfg.timeout)
	defer stop()
	v, err := reserve.Run(ctx, l.rdb, l.keys, argv...).Int64Slice()
	at := time.Now()
	if err == nil && len(v) == 0 {
		err = errors.New("empty reply")
	}
	l.gate.leave(at, err == nil)
	if err != nil {
		l.cfg.report(fmt.Errorf("fleet: reserve: %w", err))
		return l.local.reserve(now, tokens)
	}
	if v[0] < 0 {
		return 0, nil, ErrTooLarge
	}
	if b := l.cfg.breaker; b != nil && len(v) > 1 {
		vals := make([]any, len(v)-1)
		for i, x := range v[1:] {
			vals[i] = x
		}
		if s, err := parseState(vals, at); err == nil {
			b.update(s, at)
		} else {
			l.cfg.report(err)
		}
	}
	var once sync.Once
	cancel = func(time.Time) {
		once.Do(func() {
			l.refunds.Add(1)
			go l.refund(argv)
		})
	}
	return time.Duration(v[0]) * time.Microsecond, cancel, nil
}

// refund gives a reservation of argv back, unless Redis is down.
func (l *Limiter) refund(argv []any) {
	defer l.refunds.Done()
	if !l.gate.enter(time.Now()) {
		l.cfg.report(errors.New("fleet: cancel reservation: Redis is down; the capacity comes back with time"))
		return
	}
	ctx, stop := context.WithTimeout(context.Background(), l.cfg.timeout)
	defer stop()
	err := refund.Run(ctx, l.rdb, l.keys[:len(l.buckets)], argv...).Err()
	l.gate.leave(time.Now(), err == nil)
	if err != nil {
		l.cfg.report(fmt.Errorf("fleet: cancel reservation: %w", err))
	}
}

// Flush waits for the cancellations under way to reach Redis.
func (l *Limiter) Flush() { l.refunds.Wait() }

// Close waits for the cancellations under way to reach Redis. It returns
// nil; the Limiter keeps working.
func (l *Limiter) Close() error {
	l.Flush()
	return nil
}

// localLimit is a Limiter's process-local stand-in while Redis is down.
type localLimit struct {
	rps, tpm *rate.Limiter // nil when the Limit sets none
}

// reserve reserves on the local limiters as a Router does on its own.
func (ll *localLimit) reserve(now time.Time, tokens int) (time.Duration, func(time.Time), error) {
	var rs []*rate.Reservation
	var delay time.Duration
	for _, lim := range []*rate.Limiter{ll.rps, ll.tpm} {
		if lim == nil {
			continue
		}
		n := 1
		if lim == ll.tpm {
			n = max(tokens, 1)
		}
		r := lim.ReserveN(now, n)
		if !r.OK() {
			for _, r := range rs {
				r.CancelAt(now)
			}
			return 0, nil, ErrTooLarge
		}
		rs = append(rs, r)
		delay = max(delay, r.DelayFrom(now))
	}
	var once sync.Once
	return delay, func(now time.Time) {
		once.Do(func() {
			for _, r := range rs {
				r.CancelAt(now)
			}
		})
	}, nil
}
