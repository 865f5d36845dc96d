package fleet_test

import (
	"log"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/redis/go-redis/v9"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// Every replica of a service builds the same Router: the primary route's
// breaker and tokens-per-minute limit are shared through Redis, the
// fallback is plain. The limiter leases capacity for 4 requests at a
// time, so most admissions cost no Redis round trip (each replica may run
// ahead of the fleet's limit by one lease), and reads the breaker's state
// with each lease. The client neither retries
// nor waits long: with Redis down, the route is decided locally. (The
// example needs a Redis server, so it does not run as a test.)
func Example() {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  "localhost:6379",
		ContextTimeoutEnabled: true, // fleet.WithTimeout then bounds reads and writes
		MaxRetries:            -1,
		DialerRetries:         1,
		DialTimeout:           10 * time.Millisecond,
		ReadTimeout:           10 * time.Millisecond,
		WriteTimeout:          10 * time.Millisecond,
		PoolTimeout:           10 * time.Millisecond,
	})
	defer rdb.Close()
	onErr := fleet.WithErrorHandler(func(err error) { log.Printf("fleet: %v", err) })

	br, err := fleet.NewBreaker(rdb, "primary", tokenpace.BreakerSettings{Failures: 5, Timeout: 30 * time.Second}, onErr)
	if err != nil {
		log.Fatal(err)
	}
	defer br.Close() // records the outcomes still queued
	lim, err := fleet.NewLimiter(rdb, "primary", tokenpace.Limit{RPS: 50, TPM: 2_000_000}, onErr,
		fleet.WithBreaker(br), fleet.WithLease(4, 0))
	if err != nil {
		log.Fatal(err)
	}
	defer lim.Close() // gives back the unused lease
	c := tokenpace.NewClient(openai.NewClient())
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 2 * time.Second}},
		tokenpace.Route{Name: "primary", Model: "gpt-4o", Breaker: br, Limiter: lim},
		tokenpace.Route{Name: "fallback", Model: "gpt-4o-mini"},
	)
	if err != nil {
		log.Fatal(err)
	}
	_ = r // r.NewStreaming(ctx, params) as with any Router
}
