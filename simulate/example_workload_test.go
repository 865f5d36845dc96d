package simulate_test

import (
	"fmt"
	"math"

	"github.com/tokenpace/tokenpace/simulate"
)

// Gamma arrivals keep the mean rate and make the gaps as uneven as the
// burstiness asks: a coefficient of variation of 3 packs requests into
// bursts with long lulls between them.
func ExampleWorkload_gamma() {
	for _, cv := range []float64{1, 3} {
		a, _ := simulate.Workload{Rate: 10, Process: simulate.GammaProcess, Burstiness: cv, Requests: 20000, Seed: 1}.Arrivals()
		var sum, sum2 float64
		for i := 1; i < len(a); i++ {
			g := (a[i].At - a[i-1].At).Seconds()
			sum, sum2 = sum+g, sum2+g*g
		}
		n := float64(len(a) - 1)
		mean := sum / n
		fmt.Printf("burstiness %v: mean gap %.2f s, CV %.1f\n", cv, mean, math.Sqrt(sum2/n-mean*mean)/mean)
	}
	// Output:
	// burstiness 1: mean gap 0.10 s, CV 1.0
	// burstiness 3: mean gap 0.10 s, CV 2.9
}
