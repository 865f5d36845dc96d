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
// arguments are not used.
//
// When Redis cannot be reached the limiter fails open: Reserve admits at
// once and the error goes to WithErrorHandler.
//
// A Limiter is safe for concurrent use.
type Limiter struct {
	rdb     redis.UniversalClient
	cfg     config
	keys    []string // Redis keys of the buckets
	buckets []bucket // in the order of keys
}

// bucket is one GCRA rate: requests per second or tokens per minute.
type bucket struct {
	interval float64 // microseconds per unit
	burst    float64 // units
	tokens   bool    // the cost is the request's tokens, not 1
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
	// A hash tag keeps both keys in one Redis Cluster slot, as the
	// script needs.
	base := lim.cfg.prefix + "limit:{" + name + "}:"
	if l.RPS > 0 {
		b := l.Burst
		if b == 0 {
			b = max(1, int(math.Ceil(l.RPS)))
		}
		lim.keys = append(lim.keys, base+"rps")
		lim.buckets = append(lim.buckets, bucket{interval: 1e6 / l.RPS, burst: float64(b)})
	}
	if l.TPM > 0 {
		lim.keys = append(lim.keys, base+"tpm")
		lim.buckets = append(lim.buckets, bucket{interval: 60e6 / float64(l.TPM), burst: float64(l.TPM), tokens: true})
	}
	return lim, nil
}

// reserve takes cost units on every key (ARGV: per key, microseconds per
// unit, burst, cost) and returns the wait in microseconds, or -1 when a
// cost exceeds its burst. A key holds the theoretical arrival time (TAT)
// in microseconds of Redis's clock and expires when it is in the past.
var reserve = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local wait, tats = 0, {}
for i, key in ipairs(KEYS) do
  local interval, burst, cost = tonumber(ARGV[3*i-2]), tonumber(ARGV[3*i-1]), tonumber(ARGV[3*i])
  if cost > burst then return -1 end
  local tat = tonumber(redis.call('GET', key)) or now
  if tat < now then tat = now end
  tats[i] = tat + cost * interval
  local w = tats[i] - burst * interval - now
  if w > wait then wait = w end
end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, string.format('%.0f', tats[i]), 'PX', math.ceil((tats[i] - now) / 1000) + 1)
end
return math.ceil(wait)`)

// refund gives cost units back on every key (same ARGV as reserve).
var refund = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i, key in ipairs(KEYS) do
  local tat = tonumber(redis.call('GET', key))
  if tat then
    tat = tat - tonumber(ARGV[3*i]) * tonumber(ARGV[3*i-2])
    if tat > now then
      redis.call('SET', key, string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
    else
      redis.call('DEL', key)
    end
  end
end
return 0`)

// argv returns the scripts' arguments for a request of tokens tokens.
func (l *Limiter) argv(tokens int) []any {
	out := make([]any, 0, 3*len(l.buckets))
	for _, b := range l.buckets {
		cost := 1
		if b.tokens {
			cost = max(tokens, 1)
		}
		out = append(out, strconv.FormatFloat(b.interval, 'f', -1, 64), strconv.FormatFloat(b.burst, 'f', -1, 64), cost)
	}
	return out
}

// Reserve implements tokenpace.Limiter: it reserves one request and
// tokens tokens on the shared limit and returns the wait, or ErrTooLarge.
// cancel gives the capacity back; it acts once, however often it is
// called.
func (l *Limiter) Reserve(_ time.Time, tokens int) (delay time.Duration, cancel func(time.Time), err error) {
	for _, b := range l.buckets {
		if b.tokens && float64(tokens) > b.burst {
			return 0, nil, ErrTooLarge
		}
	}
	argv := l.argv(tokens)
	ctx, stop := context.WithTimeout(context.Background(), l.cfg.timeout)
	defer stop()
	us, err := reserve.Run(ctx, l.rdb, l.keys, argv...).Int64()
	if err != nil {
		l.cfg.report(fmt.Errorf("fleet: reserve: %w", err))
		return 0, func(time.Time) {}, nil
	}
	if us < 0 {
		return 0, nil, ErrTooLarge
	}
	var once sync.Once
	cancel = func(time.Time) {
		once.Do(func() {
			ctx, stop := context.WithTimeout(context.Background(), l.cfg.timeout)
			defer stop()
			if err := refund.Run(ctx, l.rdb, l.keys, argv...).Err(); err != nil {
				l.cfg.report(fmt.Errorf("fleet: cancel reservation: %w", err))
			}
		})
	}
	return time.Duration(us) * time.Microsecond, cancel, nil
}
