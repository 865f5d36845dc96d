package fleet

// ReserveScript is the reservation script, for the benchmark that splits
// an admission's cost.
var ReserveScript = reserve

// LeaseHooks are called at points of a leased Limiter's life that tests
// interleave with Close: RoundTrip when a leasing round trip (a
// reservation's or a top-up's) returned, before the lease hears of it;
// CloseWaits when Close waits for such round trips; Expired when an
// expired lease was given back. Nil fields are not called.
type LeaseHooks struct{ RoundTrip, CloseWaits, Expired func() }

// SetLeaseHooks sets l's hooks; call it before l is used.
func SetLeaseHooks(l *Limiter, h LeaseHooks) {
	l.lease.hooks = leaseHooks{roundTrip: h.RoundTrip, closeWaits: h.CloseWaits, expired: h.Expired}
}
