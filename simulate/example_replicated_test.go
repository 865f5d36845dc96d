package simulate_test

import (
	"fmt"

	"github.com/tokenpace/tokenpace/simulate"
)

// Four replicas behind a prefix-aware router: requests sharing a system
// prompt go where it is cached.
func ExampleReplicated() {
	m, _ := simulate.LookupModel("llama-3.1-8b")
	for _, r := range []simulate.Routing{simulate.RoundRobin, simulate.PrefixAffinity} {
		c, err := simulate.Replicated(simulate.Deployment{Model: m}, 4, r)
		if err != nil {
			fmt.Println(err)
			return
		}
		w, _ := simulate.Workload{Rate: 5, Process: simulate.ConstantProcess, Requests: 100,
			Prompt: simulate.TokenDist{Mean: 1100}, Output: simulate.TokenDist{Mean: 20}, PrefixTokens: 1024, Prefixes: 3}.Arrivals()
		simulate.Run(c, w)
		s := c.Stats()
		fmt.Printf("%s: %.0f%% of prompt tokens from the prefix cache\n", r, 100*float64(s.PrefixHits)/float64(s.PromptTokens))
	}
	// Output:
	// round-robin: 82% of prompt tokens from the prefix cache
	// affinity: 90% of prompt tokens from the prefix cache
}
