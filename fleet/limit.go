package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
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
// capacity back in the background, off the caller's path. Made
// WithLease, the Limiter reserves most requests from capacity it leased
// ahead, without a round trip, for a bounded over-admission.
//
// When Redis fails, the Limiter leaves it alone for a back-off window
// (WithRedisBackoff) and reserves meanwhile on a process-local
// golang.org/x/time/rate limiter of the same limit (so each replica
// alone keeps to the fleet's limit), at no cost per call; the error goes
// to WithErrorHandler. The local limiter counts only this replica's
// reservations made while Redis was down, not the fleet's: an outage
// finds it with its whole burst (unless an outage shortly before used
// some), however much of the fleet's limit was used, and k replicas
// admit up to k times the limit until Redis answers again; what they
// reserved locally is not counted in Redis afterwards. After the window
// the next request tries Redis again.
//
// Close gives back what it leased and waits for the cancellations under
// way. A Limiter is safe for concurrent use.
type Limiter struct {
	rdb     redis.UniversalClient
	cfg     config
	keys    []string // the hash of the buckets: the breaker's, if any
	buckets []bucket
	gate    *redisGate
	local   localLimit
	refunds batcher[[]int64] // per bucket, the units to give back
	lease   *lease           // nil unless WithLease
}

// bucket is one GCRA rate: requests per second or tokens per minute.
type bucket struct {
	interval float64 // microseconds per unit
	burst    float64 // units
	tokens   bool    // the cost is the request's tokens, not 1
	// its field in the hash, interval and burst as the scripts read them
	field, intervalArg, burstArg string
}

// cost returns the units a request of tokens tokens takes.
func (b bucket) cost(tokens int) int {
	if b.tokens {
		return max(tokens, 1)
	}
	return 1
}

func newBucket(field string, interval, burst float64, tokens bool) bucket {
	return bucket{interval: interval, burst: burst, tokens: tokens, field: field,
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
	if l.RPS == 0 && l.TPM == 0 {
		return nil, errors.New("fleet: NewLimiter needs a limit: RPS or TPM")
	}
	lim := &Limiter{rdb: rdb, cfg: newConfig(opts)}
	lim.refunds.send, lim.refunds.report = lim.refund, lim.cfg.report
	lim.gate = &redisGate{backoff: lim.cfg.backoff}
	if b := lim.cfg.breaker; b != nil {
		lim.gate = b.gate
	}
	// The buckets are fields of one hash: the breaker's, if any.
	lim.keys = []string{lim.cfg.prefix + "limit:{" + name + "}"}
	if b := lim.cfg.breaker; b != nil {
		lim.keys[0] = b.key
	}
	if l.RPS > 0 {
		b := l.Burst
		if b == 0 {
			b = max(1, int(math.Ceil(l.RPS)))
		}
		lim.buckets = append(lim.buckets, newBucket("rps", 1e6/l.RPS, float64(b), false))
		lim.local.rps = rate.NewLimiter(rate.Limit(l.RPS), b)
	}
	if l.TPM > 0 {
		lim.buckets = append(lim.buckets, newBucket("tpm", 60e6/float64(l.TPM), float64(l.TPM), true))
		lim.local.tpm = rate.NewLimiter(rate.Limit(float64(l.TPM)/60), l.TPM)
	}
	if lim.cfg.leaseN > 0 {
		lim.lease = newLease(len(lim.buckets), lim.cfg.leaseTTL, lim.giveBack, lim.refill)
	}
	return lim, nil
}

// costs returns the units a request of tokens tokens takes on each
// bucket.
func (l *Limiter) costs(tokens int) []int64 {
	out := make([]int64, len(l.buckets))
	for i, b := range l.buckets {
		out[i] = int64(b.cost(tokens))
	}
	return out
}

// leaseSize returns the units a lease holds per bucket, for requests of
// costs: room for WithLease's n of them, within the burst.
func (l *Limiter) leaseSize(costs []int64) []int64 {
	out := make([]int64, len(costs))
	for i, c := range costs {
		out[i] = min(int64(l.cfg.leaseN)*c, max(0, int64(l.buckets[i].burst)-c))
	}
	return out
}

// argv returns reserve's arguments for a request of costs, with extra
// units to lease (nil for none).
func (l *Limiter) argv(costs, extra []int64) []any {
	out := make([]any, 0, 3+5*len(l.buckets))
	out = append(out, len(l.buckets))
	for i, b := range l.buckets {
		var x int64
		if extra != nil {
			x = extra[i]
		}
		out = append(out, b.field, b.intervalArg, b.burstArg, costs[i], x)
	}
	if b := l.cfg.breaker; b != nil {
		out = append(out, b.args...)
	}
	return out
}

// Reserve implements tokenpace.Limiter: it reserves one request and
// tokens tokens on the shared limit and returns the wait, or ErrTooLarge.
// cancel gives the capacity back; it acts once, however often it is
// called. Made WithLease, it takes the capacity from what the Limiter
// leased, when that is enough, without a round trip.
func (l *Limiter) Reserve(now time.Time, tokens int) (delay time.Duration, cancel func(time.Time), err error) {
	for _, b := range l.buckets {
		if b.tokens && float64(tokens) > b.burst {
			return 0, nil, ErrTooLarge
		}
	}
	costs := l.costs(tokens)
	if l.lease != nil {
		if epoch, ok := l.lease.take(time.Now(), costs); ok {
			return 0, once(func() { l.lease.put(epoch, costs) }), nil
		}
	}
	if !l.gate.enter(time.Now()) {
		return l.local.reserve(now, tokens)
	}
	var size, extra []int64
	if l.lease != nil {
		size = l.leaseSize(costs)
		extra = l.lease.ask(size)
	}
	wait, leased, at, err := l.exchange(costs, extra)
	if extra != nil {
		l.lease.settle(at, leased, extra, size)
	}
	if errors.Is(err, ErrTooLarge) {
		return 0, nil, err
	}
	if err != nil {
		l.cfg.report(err) // once settled: the handler may call Close
		return l.local.reserve(now, tokens)
	}
	return wait, once(func() { l.giveBack(costs) }), nil
}

// exchange runs reserve for costs and extra (nil for none) in one round
// trip, the caller having entered the gate, passes the Breaker's state
// on and returns the wait, whether the extra units were leased and when
// the reply came. Redis's errors are returned for the caller to report;
// ErrTooLarge is returned as is.
func (l *Limiter) exchange(costs, extra []int64) (wait time.Duration, leased bool, at time.Time, err error) {
	ctx, stop := context.WithTimeout(context.Background(), l.cfg.timeout)
	defer stop()
	v, err := reserve.Run(ctx, l.rdb, l.keys, l.argv(costs, extra)...).Int64Slice()
	at = time.Now()
	var r reserveReply
	if err == nil {
		r, err = parseReserve(v, at)
	}
	l.gate.leave(at, err == nil)
	if err != nil {
		return 0, false, at, fmt.Errorf("fleet: reserve: %w", explain(err))
	}
	if r.tooLarge {
		return 0, false, at, ErrTooLarge
	}
	if b := l.cfg.breaker; b != nil && r.state != nil {
		b.update(*r.state, at)
	}
	return r.wait, r.leased, at, nil
}

// Settle corrects the tokens-per-minute count of a request admitted for
// reserved tokens (the estimate Reserve was given) by the tokens it used
// (prompt plus output, as its server reported them): the difference is
// charged to the shared limit, or given back, with the next batch of
// cancellations (a charge at most the limit's burst, as
// golang.org/x/time/rate's; a batch nets charges and refunds). While Redis
// is down it is charged to the local stand-in. A Router calls it when a
// request it admitted ends with usage (see tokenpace.Limiter), so that
// the fleet's limit counts what requests used, not their estimates: a
// request sent without max_tokens is reserved for its prompt alone.
func (l *Limiter) Settle(now time.Time, reserved, used int) {
	i := slices.IndexFunc(l.buckets, func(b bucket) bool { return b.tokens })
	if i < 0 || used <= 0 {
		return
	}
	b := l.buckets[i]
	d := min(used-b.cost(reserved), int(b.burst))
	if d == 0 {
		return
	}
	if !l.gate.up() {
		l.local.tpm.ReserveN(now, d) // a negative n gives tokens back
		return
	}
	units := make([]int64, len(l.buckets))
	units[i] = -int64(d) // giveBack gives back; a charge is a negative refund
	l.giveBack(units)
}

// refill leases extra units in the background (a reservation of nothing
// but the lease) and settles the lease's round trip; it returns the
// report of its error, if any, for the lease to call once its goroutine
// is done.
func (l *Limiter) refill(extra []int64, settle func(at time.Time, ok bool)) (after func()) {
	if !l.gate.enter(time.Now()) {
		settle(time.Time{}, false)
		return nil
	}
	_, leased, at, err := l.exchange(make([]int64, len(extra)), extra)
	settle(at, leased)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		return func() { l.cfg.report(err) }
	}
	return nil
}

// once returns a cancel func that calls f the first time only.
func once(f func()) func(time.Time) {
	var o sync.Once
	return func(time.Time) { o.Do(f) }
}

// giveBack queues units to give back to Redis in the next batch.
func (l *Limiter) giveBack(units []int64) {
	if !l.refunds.add(func(sum *[]int64) {
		if *sum == nil {
			*sum = make([]int64, len(l.buckets))
		}
		for i, u := range units {
			(*sum)[i] += u
		}
	}) {
		l.cfg.report(errors.New("fleet: cancel reservation after Close: the capacity comes back with time"))
	}
}

// refund gives the sum of cancelled reservations back in one round trip
// (giving a and b back is giving a+b back), unless Redis is down, and
// passes its errors to report.
func (l *Limiter) refund(costs []int64, report func(error)) {
	if !l.gate.enter(time.Now()) {
		report(errors.New("fleet: cancel reservation: Redis is down; the capacity comes back with time"))
		return
	}
	argv := make([]any, 0, 2+4*len(l.buckets))
	argv = append(argv, len(l.buckets))
	for i, b := range l.buckets {
		argv = append(argv, b.field, b.intervalArg, b.burstArg, costs[i])
	}
	own := 1
	if l.cfg.breaker != nil {
		own = 0
	}
	argv = append(argv, own)
	ctx, stop := context.WithTimeout(context.Background(), l.cfg.timeout)
	defer stop()
	err := refund.Run(ctx, l.rdb, l.keys, argv...).Err()
	l.gate.leave(time.Now(), err == nil)
	if err != nil {
		report(fmt.Errorf("fleet: cancel reservation: %w", explain(err)))
	}
}

// Flush gives the cancelled reservations back now, and returns when
// they are, once the lease being topped up in the background, if any, is.
func (l *Limiter) Flush() {
	if l.lease != nil {
		l.lease.wait()
	}
	l.refunds.flush()
}

// Close gives the cancelled reservations and what it leased back, and
// waits for that to end. A reservation under way that leases meanwhile
// is waited for (its round trip is bounded by WithTimeout), and what it
// leased is given back too: it keeps its own request. Reservations that
// begin after Close began reserve their own request exactly, without
// leasing; Reserve keeps working so. Reservations cancelled after Close
// returned are not given back (the capacity comes back with time; the
// error handler hears of it). It returns nil.
func (l *Limiter) Close() error {
	if l.lease != nil {
		l.lease.close()
	}
	l.refunds.close()
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
