package simulate

import (
	"sync"
	"time"
)

// driver is the online driver of one model: a goroutine that owns the
// model's Scheduler, admits requests as they arrive, and delivers each
// emission to its request's handler when the emission is due in real (or,
// under testing/synctest, virtual) time.
//
// Event times are Durations since the driver's epoch, and the driver waits
// for absolute deadlines (epoch + event time), never for relative sleeps, so
// late wake-ups do not accumulate: a late step is followed by one on time.
type driver struct {
	sched Scheduler
	epoch time.Time
	alarm alarm // owned by the loop; closed when it exits

	adds    chan driverAdd
	cancels chan uint64
	stats   chan chan Stats
	done    chan struct{}
	exited  chan struct{}
	stop    sync.Once
}

type driverAdd struct {
	req  *Request
	sink *sink
	at   time.Time // when the request reaches the engine
}

// newDriver starts the driver's goroutine, which waits on a; call close to
// stop it.
func newDriver(s Scheduler, a alarm) *driver {
	d := &driver{
		sched:   s,
		epoch:   time.Now(),
		alarm:   a,
		adds:    make(chan driverAdd),
		cancels: make(chan uint64),
		stats:   make(chan chan Stats),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	go d.loop()
	return d
}

// close stops the goroutine and waits for it to exit. Requests still
// running get no more emissions.
func (d *driver) close() {
	d.stop.Do(func() { close(d.done) })
	<-d.exited
}

// add admits r, which reaches the engine at at, and returns the sink its
// emissions will arrive on. It reports false once the driver is closed.
func (d *driver) add(r *Request, at time.Time) (*sink, bool) {
	s := newSink()
	select {
	case d.adds <- driverAdd{req: r, sink: s, at: at}:
		return s, true
	case <-d.done:
		return nil, false
	}
}

// cancel withdraws the request with id (its client went away).
func (d *driver) cancel(id uint64) {
	select {
	case d.cancels <- id:
	case <-d.done:
	}
}

// snapshot returns the scheduler's Stats.
func (d *driver) snapshot() Stats {
	c := make(chan Stats, 1)
	select {
	case d.stats <- c:
		return <-c
	case <-d.done:
		return Stats{}
	}
}

func (d *driver) loop() {
	defer close(d.exited)
	sinks := make(map[uint64]*sink)
	var last time.Duration // time of the last event delivered
	// now returns the current time on the driver's clock, never earlier
	// than the last event, as Scheduler requires.
	now := func(t time.Time) time.Duration {
		return max(t.Sub(d.epoch), last)
	}
	emit := func(e Emission) {
		s := sinks[e.ID]
		if s == nil {
			return
		}
		s.push(e, d.epoch.Add(e.At))
		if e.Done {
			delete(sinks, e.ID)
		}
	}
	defer d.alarm.close()
	gap := d.alarm.gap()
	var woke time.Time // the last wake-up that ran a step
	armed := false
	var armedAt time.Duration // the event the alarm is set for
	for {
		var fire <-chan time.Time
		if at, ok := d.sched.Next(); ok {
			if !armed || at != armedAt {
				wait := time.Until(d.epoch.Add(at))
				if gap > 0 {
					wait = max(wait, gap-time.Since(woke))
				}
				d.alarm.reset(wait)
				armed, armedAt = true, at
			}
			fire = d.alarm.c()
		} else if armed {
			d.alarm.stop()
			armed = false
		}
		select {
		case a := <-d.adds:
			sinks[a.req.ID] = a.sink
			d.sched.Add(now(a.at), a.req)
		case id := <-d.cancels:
			if _, ok := sinks[id]; ok {
				delete(sinks, id)
				d.sched.Cancel(now(time.Now()), id)
			}
		case c := <-d.stats:
			c <- d.sched.Stats()
		case <-fire:
			armed = false
			clock := time.Now()
			t := now(clock)
			at, ok := d.sched.Next()
			if ok && at > t+time.Microsecond {
				// The value of an earlier setting (a precise timer
				// can deliver one after a reset): nothing is due yet,
				// so set the alarm again.
				continue
			}
			if ok && at > t {
				// An alarm is never early on the driver's own clock,
				// but the scheduler's time and the clock's are both
				// exact only to the nanosecond; run the step anyway.
				t = at
			}
			d.sched.AdvanceTo(t, emit)
			last, woke = t, clock
		case <-d.done:
			d.alarm.stop()
			return
		}
	}
}

// sink carries one request's emissions from the driver to its handler
// without ever blocking the driver: emissions queue until the handler takes
// them. Once the handler hands its response over (direct), the driver sends
// an emission itself while the handler is idle and nothing is queued; what
// the connection does not take then goes to the handler (rest), and so do
// the emissions after it until the handler is idle again.
type sink struct {
	mu     sync.Mutex
	queue  []Emission
	ready  chan struct{} // has a value when queue or rest is not empty
	direct directSender  // set from handOver to close
	busy   bool          // the handler is handling what it took
	rest   []byte        // what a direct send left unwritten
}

// directSender is a response the driver may send emissions of itself:
// sendDirect takes emission e, due at at (not later than now), writes what
// it completes without waiting and returns what the connection did not
// take.
type directSender interface {
	sendDirect(e Emission, at time.Time) []byte
}

func newSink() *sink { return &sink{ready: make(chan struct{}, 1)} }

// push delivers e, due at at, to the request: sent directly when the
// handler allows it and is idle, else queued for the handler.
func (s *sink) push(e Emission, at time.Time) {
	s.mu.Lock()
	if s.direct != nil && !s.busy && !e.Done && len(s.queue) == 0 && len(s.rest) == 0 {
		rest := s.direct.sendDirect(e, at)
		if len(rest) == 0 {
			s.mu.Unlock()
			return
		}
		s.rest = append(s.rest, rest...)
	} else {
		s.queue = append(s.queue, e)
	}
	s.mu.Unlock()
	signal(s.ready)
}

// take returns every queued emission, in order, and empties the queue,
// reusing spare (which the caller no longer needs) for the next ones;
// before them, rest holds bytes a direct send left unwritten, which the
// handler writes first. The handler is busy until it calls idle.
func (s *sink) take(spare []Emission) (q []Emission, rest []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, rest = s.queue, s.rest
	s.queue, s.rest = spare[:0], nil
	s.busy = true
	return q, rest
}

// idle tells the driver that the handler has sent what it took, flushed
// included, so direct sends may resume.
func (s *sink) idle() {
	s.mu.Lock()
	s.busy = false
	s.mu.Unlock()
}

// handOver lets the driver send d's emissions itself from now on. The
// handler calls it with its output flushed.
func (s *sink) handOver(d directSender) {
	s.mu.Lock()
	s.direct = d
	s.mu.Unlock()
}

// close ends direct sends: once it returns, the driver no longer writes to
// the request's connection. The handler calls it before returning. It
// reports whether a direct send left part of a chunk unwritten, which the
// handler did not take: the response must then be aborted, since ending it
// would put the end of the body right after half a chunk.
func (s *sink) close() (partial bool) {
	s.mu.Lock()
	s.direct = nil
	partial = len(s.rest) > 0
	s.mu.Unlock()
	return partial
}
