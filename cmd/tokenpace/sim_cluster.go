package main

import (
	"flag"
	"fmt"

	"github.com/tokenpace/tokenpace/simulate"
)

// clusterFlags are sim's --replicas and --routing: serve a cluster of
// identical replicas behind a router instead of one engine.
type clusterFlags struct {
	replicas int
	routing  string
}

func addClusterFlags(fs *flag.FlagSet) *clusterFlags {
	c := &clusterFlags{}
	fs.IntVar(&c.replicas, "replicas", 1, "replicas of the deployment, each with its own batch and KV cache, behind a router")
	fs.StringVar(&c.routing, "routing", "least-outstanding", "how the router spreads requests over replicas: least-outstanding, round-robin or affinity (prefix-cache aware)")
	return c
}

// scheduler returns an engine on d for one replica, else a cluster of
// c.replicas copies of d, with a description of what it serves.
func (c *clusterFlags) scheduler(d simulate.Deployment) (simulate.Scheduler, string, error) {
	r, err := simulate.ParseRouting(c.routing)
	if err != nil {
		return nil, "", fmt.Errorf("--routing: %w", err)
	}
	if c.replicas < 1 {
		return nil, "", fmt.Errorf("--replicas must be at least 1, got %d", c.replicas)
	}
	what := fmt.Sprintf("%s at %s on %d × %s", d.Model.Name, d.Precision.Name, d.GPUs, d.GPU.Name)
	if c.replicas == 1 {
		e, err := simulate.NewEngine(d)
		return e, what, err
	}
	cl, err := simulate.Replicated(d, c.replicas, r)
	return cl, fmt.Sprintf("%d replicas of %s, %s routing", c.replicas, what, r), err
}

// clusterFlagsSet reports whether --replicas or --routing was given.
func clusterFlagsSet(set map[string]bool) bool { return set["replicas"] || set["routing"] }
