package simulate

import (
	"fmt"
	"time"
)

// Cluster is N replicas, each an Engine on its own Deployment, behind a
// request router. It is a Scheduler, so the offline driver (Run) simulates
// a whole cluster in one discrete-event run and the HTTP server serves one
// (WithModel(name, cluster)) exactly as it serves one engine.
//
// Emissions of all replicas come out of AdvanceTo in time order; replicas
// whose steps end at the same instant emit in replica order, so every run
// is deterministic.
//
// A Cluster is not safe for concurrent use; each driver owns one.
type Cluster struct {
	replicas []*Engine
	router   router
	routing  Routing
	where    map[uint64]int // request ID → replica, while the request runs
	load     []int          // outstanding requests per replica
}

// compile-time check that *Cluster is a Scheduler.
var _ Scheduler = (*Cluster)(nil)

// NewCluster returns a cluster of one replica per deployment behind a
// router of kind r. Deployments may differ (GPU, batch, KV budget,
// chunked-prefill size). An impossible deployment, no deployment at all or
// an unknown routing yields an *InvalidError.
func NewCluster(r Routing, replicas ...Deployment) (*Cluster, error) {
	if len(replicas) == 0 {
		return nil, &InvalidError{Field: "replicas", Value: 0, Reason: "must be at least 1"}
	}
	rt, err := newRouter(r, len(replicas))
	if err != nil {
		return nil, err
	}
	c := &Cluster{router: rt, routing: r, where: make(map[uint64]int), load: make([]int, len(replicas))}
	for i, d := range replicas {
		e, err := NewEngine(d)
		if err != nil {
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		c.replicas = append(c.replicas, e)
	}
	return c, nil
}

// Replicated returns a cluster of n identical replicas of d behind a
// router of kind r.
func Replicated(d Deployment, n int, r Routing) (*Cluster, error) {
	if n < 1 {
		return nil, &InvalidError{Field: "replicas", Value: n, Reason: "must be at least 1"}
	}
	ds := make([]Deployment, n)
	for i := range ds {
		ds[i] = d
	}
	return NewCluster(r, ds...)
}

// Replicas returns the cluster's engines, in replica order. Read their
// Stats and Deployment; driving them directly breaks the cluster.
func (c *Cluster) Replicas() []*Engine { return c.replicas }

// Routing returns how the cluster routes requests.
func (c *Cluster) Routing() Routing { return c.routing }

// Outstanding returns how many requests each replica holds (queued or
// running), in replica order.
func (c *Cluster) Outstanding() []int { return append([]int(nil), c.load...) }

// Add implements Scheduler: the router picks a replica for r.
func (c *Cluster) Add(now time.Duration, r *Request) {
	if i, ok := c.where[r.ID]; ok { // a re-used ID replaces its request
		c.replicas[i].Cancel(now, r.ID)
		c.load[i]--
	}
	i := c.router.pick(r, c.load)
	c.where[r.ID] = i
	c.load[i]++
	c.replicas[i].Add(now, r)
}

// Cancel implements Scheduler.
func (c *Cluster) Cancel(now time.Duration, id uint64) {
	i, ok := c.where[id]
	if !ok {
		return
	}
	delete(c.where, id)
	c.load[i]--
	c.replicas[i].Cancel(now, id)
}

// Next implements Scheduler: the earliest next event of any replica.
func (c *Cluster) Next() (time.Duration, bool) {
	_, at, ok := c.earliest()
	return at, ok
}

func (c *Cluster) earliest() (int, time.Duration, bool) {
	best, bestAt, found := -1, time.Duration(0), false
	for i, e := range c.replicas {
		if at, ok := e.Next(); ok && (!found || at < bestAt) {
			best, bestAt, found = i, at, true
		}
	}
	return best, bestAt, found
}

// AdvanceTo implements Scheduler: it runs the replicas' steps one event
// time at a time, earliest first, so emissions come out in time order.
func (c *Cluster) AdvanceTo(t time.Duration, emit func(Emission)) {
	fn := func(em Emission) {
		if em.Done {
			if i, ok := c.where[em.ID]; ok {
				delete(c.where, em.ID)
				c.load[i]--
			}
		}
		emit(em)
	}
	for {
		i, at, ok := c.earliest()
		if !ok || at > t {
			return
		}
		c.replicas[i].AdvanceTo(at, fn)
	}
}

// Stats implements Scheduler: counts add up over the replicas, KVUsage is
// their mean and Offloaded is true if any replica offloads.
func (c *Cluster) Stats() Stats {
	var s Stats
	for _, e := range c.replicas {
		r := e.Stats()
		s.Waiting += r.Waiting
		s.Running += r.Running
		s.KVUsage += r.KVUsage / float64(len(c.replicas))
		s.Offloaded = s.Offloaded || r.Offloaded
		s.PrefixHits += r.PrefixHits
		s.PromptTokens += r.PromptTokens
		s.GeneratedTotal += r.GeneratedTotal
		s.Preemptions += r.Preemptions
	}
	return s
}
