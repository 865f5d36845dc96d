package simulate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// FaultHeader is the request header through which a client picks the fault
// of one request, overriding Faults.Script and the rates. Its value is a
// fault name with optional parameters separated by semicolons:
//
//	429                   rate limited, Retry-After: 1
//	429;for=3s            rate limited, Retry-After: 3
//	500 | 503             server error | service unavailable
//	reset;after=5         connection reset after 5 chunks
//	stall;for=2s;after=5  the stream stalls 2 s after 5 chunks
//	malformed;after=5     a malformed event after 5 chunks
//	slow-headers;for=1s   response headers 1 s late
//	none                  no fault, whatever the rates say
//
// "after" counts output-bearing chunks (0, the default, is before the first
// one); "for" is at most MaxFaultDuration. An unparsable value gets a 400
// response. The server reads the header only when WithFaultHeader is on.
const FaultHeader = "X-Tokenpace-Fault"

// FaultKind names a fault the server can inject.
type FaultKind int

// The faults. Status faults answer at once with an OpenAI-style error;
// mid-stream faults strike after Fault.After output-bearing chunks.
const (
	// NoFault serves the request normally.
	NoFault FaultKind = iota
	// FaultRateLimit answers 429 with a Retry-After header.
	FaultRateLimit
	// FaultServerError answers 500.
	FaultServerError
	// FaultUnavailable answers 503.
	FaultUnavailable
	// FaultReset drops the connection mid-stream, without the end of the
	// chunked body: the client sees an unexpected EOF.
	FaultReset
	// FaultStall stops the stream for Fault.For; chunks due meanwhile
	// arrive together when it ends.
	FaultStall
	// FaultMalformed sends an event whose data is not valid JSON, then
	// carries on.
	FaultMalformed
	// FaultSlowHeaders sends the response headers Fault.For late; chunks
	// due before then arrive with them.
	FaultSlowHeaders
)

var faultNames = map[FaultKind]string{
	NoFault:          "none",
	FaultRateLimit:   "429",
	FaultServerError: "500",
	FaultUnavailable: "503",
	FaultReset:       "reset",
	FaultStall:       "stall",
	FaultMalformed:   "malformed",
	FaultSlowHeaders: "slow-headers",
}

// String returns the name FaultHeader uses for k.
func (k FaultKind) String() string {
	if s, ok := faultNames[k]; ok {
		return s
	}
	return "FaultKind(" + strconv.Itoa(int(k)) + ")"
}

// Fault is one injected fault.
type Fault struct {
	// Kind is the fault; NoFault (the zero value) means none.
	Kind FaultKind
	// After is how many output-bearing chunks go out before a mid-stream
	// fault strikes; 0 strikes before the first.
	After int
	// For is the stall's length (FaultStall), the headers' delay
	// (FaultSlowHeaders) or the Retry-After (FaultRateLimit); zero means
	// DefaultFaultDuration.
	For time.Duration
}

// DefaultFaultDuration is a Fault's For when it is zero.
const DefaultFaultDuration = time.Second

// MaxFaultDuration is the largest For a fault may have, from the
// FaultHeader or from Faults: a Retry-After or a stall of an hour is
// already more than any client waits.
const MaxFaultDuration = time.Hour

func (f Fault) duration() time.Duration {
	if f.For <= 0 {
		return DefaultFaultDuration
	}
	return f.For
}

// code returns the OpenAI-style error code of a status fault.
func (f Fault) code() string {
	switch f.Kind {
	case FaultRateLimit:
		return "rate_limit_exceeded"
	case FaultUnavailable:
		return "service_unavailable"
	}
	return "internal_error"
}

// status returns the HTTP status of a status fault, or 0.
func (f Fault) status() int {
	switch f.Kind {
	case FaultRateLimit:
		return 429
	case FaultServerError:
		return 500
	case FaultUnavailable:
		return 503
	}
	return 0
}

// Faults configures fault injection. The zero value injects none.
//
// For each request the server takes the first of: the FaultHeader of the
// request, Script, then one draw against the rates. Draws are deterministic:
// request i (counted from 0 in order of arrival at the server) draws from a
// generator seeded with (Seed, i), whatever the concurrency.
type Faults struct {
	// Rates are the probabilities, 0..1, of each fault per request; their
	// sum must not exceed 1. Zero means never.
	RateLimit, ServerError, Unavailable, Reset, Stall, Malformed, SlowHeaders float64
	// After is the After of faults drawn by rate.
	After int
	// For is the For of faults drawn by rate; zero means
	// DefaultFaultDuration.
	For time.Duration
	// Seed seeds the draws.
	Seed uint64
	// Script, if set, picks the fault of request index (from 0); a
	// returned NoFault falls through to the rates. Nil means rates only.
	Script func(index uint64) Fault
}

func (fs Faults) validate() error {
	rates := []float64{fs.RateLimit, fs.ServerError, fs.Unavailable, fs.Reset, fs.Stall, fs.Malformed, fs.SlowHeaders}
	sum := 0.0
	for _, r := range rates {
		if r < 0 || r > 1 || r != r {
			return fmt.Errorf("simulate: fault rate %v out of range 0..1", r)
		}
		sum += r
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("simulate: fault rates sum to %v, more than 1", sum)
	}
	if fs.After < 0 || fs.For < 0 {
		return fmt.Errorf("simulate: negative fault After (%d) or For (%v)", fs.After, fs.For)
	}
	if fs.For > MaxFaultDuration {
		return fmt.Errorf("simulate: fault For %v over %v", fs.For, MaxFaultDuration)
	}
	return nil
}

// pick returns the fault of request index with FaultHeader value header.
func (fs Faults) pick(index uint64, header string) (Fault, error) {
	if header != "" {
		return ParseFault(header)
	}
	if fs.Script != nil {
		if f := fs.Script(index); f.Kind != NoFault {
			return f, nil
		}
	}
	u := rand.New(rand.NewPCG(fs.Seed, index)).Float64()
	for _, c := range []struct {
		rate float64
		kind FaultKind
	}{
		{fs.RateLimit, FaultRateLimit},
		{fs.ServerError, FaultServerError},
		{fs.Unavailable, FaultUnavailable},
		{fs.Reset, FaultReset},
		{fs.Stall, FaultStall},
		{fs.Malformed, FaultMalformed},
		{fs.SlowHeaders, FaultSlowHeaders},
	} {
		if u < c.rate {
			return Fault{Kind: c.kind, After: fs.After, For: fs.For}, nil
		}
		u -= c.rate
	}
	return Fault{}, nil
}

// ParseFault parses a FaultHeader value.
func ParseFault(s string) (Fault, error) {
	parts := strings.Split(s, ";")
	var f Fault
	name := strings.TrimSpace(parts[0])
	found := false
	for k, n := range faultNames {
		if n == name {
			f.Kind, found = k, true
		}
	}
	if !found {
		return Fault{}, fmt.Errorf("simulate: unknown fault %q in %s (want none, 429, 500, 503, reset, stall, malformed or slow-headers)", name, FaultHeader)
	}
	for _, p := range parts[1:] {
		key, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return Fault{}, fmt.Errorf("simulate: fault parameter %q is not key=value", p)
		}
		switch key {
		case "after":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return Fault{}, fmt.Errorf("simulate: fault parameter after=%q is not a count", val)
			}
			f.After = n
		case "for":
			d, err := time.ParseDuration(val)
			if err != nil || d < 0 {
				return Fault{}, fmt.Errorf("simulate: fault parameter for=%q is not a duration", val)
			}
			if d > MaxFaultDuration {
				return Fault{}, fmt.Errorf("simulate: fault parameter for=%v is over %v", d, MaxFaultDuration)
			}
			f.For = d
		default:
			return Fault{}, fmt.Errorf("simulate: unknown fault parameter %q (want after or for)", key)
		}
	}
	return f, nil
}
