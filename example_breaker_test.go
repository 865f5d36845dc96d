package tokenpace_test

import (
	"fmt"

	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// A breaker of one's own that decides exactly as a Router's own would,
// set as a route's Breaker (here to share it between two Routers).
func ExampleBreakerSettings_Gobreaker() {
	st := tokenpace.BreakerSettings{Failures: 3}.Gobreaker("gpu-a")
	shared := gobreaker.NewTwoStepCircuitBreaker[struct{}](st)
	route := tokenpace.Route{Name: "gpu-a", Breaker: shared}
	fmt.Println(route.Name, st.Timeout, st.MaxRequests, st.ReadyToTrip(gobreaker.Counts{ConsecutiveFailures: 3}))
	// Output: gpu-a 30s 1 true
}
