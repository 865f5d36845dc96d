package simulate

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
//	reset-before-headers  connection dropped before any response
//	wrong-content-type    200 with an HTML page instead of the stream
//	truncated;after=5     the stream ends cleanly after 5 chunks, without
//	                      the finish, usage and [DONE] events
//	oversized;after=5;size=8388608
//	                      an 8 MiB event after 5 chunks
//	error-event;after=5   an error event after 5 chunks, then the end
//	none                  no fault, whatever the rates say
//
// "after" counts output-bearing chunks (0, the default, is before the first
// one); "for" is at most MaxFaultDuration, "size" at most
// MaxOversizedBytes. An unparsable value gets a 400
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
	// FaultResetBeforeHeaders drops the connection before any response:
	// the client sees the connection end (EOF) instead of headers.
	FaultResetBeforeHeaders
	// FaultWrongContentType answers 200 with an HTML page (Content-Type
	// text/html), as a captive portal or a misconfigured proxy would.
	FaultWrongContentType
	// FaultTruncated ends a stream cleanly (the chunked body is
	// terminated) in place of its chunk after Fault.After, without the
	// finish, usage and [DONE] events; a non-streaming body is cut as by
	// FaultReset.
	FaultTruncated
	// FaultOversized sends, before the chunk after Fault.After, a valid
	// chunk whose one data line is Fault.Size bytes long, then carries
	// on. Streams only.
	FaultOversized
	// FaultErrorEvent ends a stream with an error event in place of its
	// chunk after Fault.After, as OpenAI reports a failure mid-stream:
	// data {"error":{...}} on chat and completions, an "error" event on
	// the Responses API; a non-streaming request gets a 500 then.
	FaultErrorEvent
)

// FaultInfo describes one fault: the name FaultHeader and the sim
// command's --fault-NAME flag give it, what it does, and its rate in
// Faults.
type FaultInfo struct {
	Kind FaultKind
	Name string
	// Doc says what befalls the requests it strikes, in one line that
	// follows "share of requests" ("answered 500", "whose stream ...").
	Doc string
	// Rate returns the field of fs that holds its rate.
	Rate func(fs *Faults) *float64
}

// faultTable is every fault, one row each, in the order draws take their
// rates: FaultHeader's names, Faults' rates and the sim command's flags
// all come from it. A fault's behaviour is in faultplan.go.
var faultTable = []FaultInfo{
	{FaultRateLimit, "429", "answered 429 with Retry-After", func(fs *Faults) *float64 { return &fs.RateLimit }},
	{FaultServerError, "500", "answered 500", func(fs *Faults) *float64 { return &fs.ServerError }},
	{FaultUnavailable, "503", "answered 503", func(fs *Faults) *float64 { return &fs.Unavailable }},
	{FaultReset, "reset", "whose stream's connection resets mid-stream", func(fs *Faults) *float64 { return &fs.Reset }},
	{FaultStall, "stall", "whose stream stalls mid-stream for --fault-for", func(fs *Faults) *float64 { return &fs.Stall }},
	{FaultMalformed, "malformed", "whose stream gets a malformed event", func(fs *Faults) *float64 { return &fs.Malformed }},
	{FaultSlowHeaders, "slow-headers", "whose response headers come --fault-for late", func(fs *Faults) *float64 { return &fs.SlowHeaders }},
	{FaultResetBeforeHeaders, "reset-before-headers", "whose connection drops before any response", func(fs *Faults) *float64 { return &fs.ResetBeforeHeaders }},
	{FaultWrongContentType, "wrong-content-type", "answered 200 with an HTML page", func(fs *Faults) *float64 { return &fs.WrongContentType }},
	{FaultTruncated, "truncated", "whose stream ends cleanly mid-stream, without finish or [DONE]", func(fs *Faults) *float64 { return &fs.Truncated }},
	{FaultOversized, "oversized", "whose stream gets an oversized event (--fault-size bytes)", func(fs *Faults) *float64 { return &fs.Oversized }},
	{FaultErrorEvent, "error-event", "whose stream ends with an error event (non-streaming: a 500)", func(fs *Faults) *float64 { return &fs.ErrorEvent }},
}

// FaultTable returns every fault the server can inject but NoFault, one
// row each, in the order draws take their rates.
func FaultTable() []FaultInfo { return slices.Clone(faultTable) }

// String returns the name FaultHeader uses for k.
func (k FaultKind) String() string {
	if k == NoFault {
		return "none"
	}
	for _, f := range faultTable {
		if f.Kind == k {
			return f.Name
		}
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
	// Size is the length in bytes of a FaultOversized event's data line;
	// zero means DefaultOversizedBytes.
	Size int
}

// Sizes of a FaultOversized event: the default is twice the longest line
// the tokenpace client accepts by default.
const (
	DefaultOversizedBytes = 8 << 20
	MaxOversizedBytes     = 64 << 20
)

func (f Fault) size() int {
	if f.Size <= 0 {
		return DefaultOversizedBytes
	}
	return f.Size
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
	// More rates, as above, of the faults a client's fault matrix needs.
	ResetBeforeHeaders, WrongContentType, Truncated, Oversized, ErrorEvent float64
	// After is the After of faults drawn by rate.
	After int
	// For is the For of faults drawn by rate; zero means
	// DefaultFaultDuration.
	For time.Duration
	// Size is the Size of faults drawn by rate; zero means
	// DefaultOversizedBytes.
	Size int
	// Seed seeds the draws.
	Seed uint64
	// Script, if set, picks the fault of request index (from 0); a
	// returned NoFault falls through to the rates. Nil means rates only.
	Script func(index uint64) Fault
}

func (fs Faults) validate() error {
	sum := 0.0
	for _, f := range faultTable {
		r := *f.Rate(&fs)
		if r < 0 || r > 1 || r != r {
			return fmt.Errorf("simulate: fault rate %v of %s out of range 0..1", r, f.Name)
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
	if fs.Size < 0 || fs.Size > MaxOversizedBytes {
		return fmt.Errorf("simulate: fault Size %d out of range 0..%d", fs.Size, MaxOversizedBytes)
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
	for _, f := range faultTable {
		r := *f.Rate(&fs)
		if u < r {
			return Fault{Kind: f.Kind, After: fs.After, For: fs.For, Size: fs.Size}, nil
		}
		u -= r
	}
	return Fault{}, nil
}

// ParseFault parses a FaultHeader value.
func ParseFault(s string) (Fault, error) {
	parts := strings.Split(s, ";")
	var f Fault
	name := strings.TrimSpace(parts[0])
	names := []string{"none"}
	found := name == "none"
	for _, row := range faultTable {
		names = append(names, row.Name)
		if row.Name == name {
			f.Kind, found = row.Kind, true
		}
	}
	if !found {
		return Fault{}, fmt.Errorf("simulate: unknown fault %q in %s (want %s)", name, FaultHeader, strings.Join(names, ", "))
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
		case "size":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 || n > MaxOversizedBytes {
				return Fault{}, fmt.Errorf("simulate: fault parameter size=%q is not a size in 0..%d", val, MaxOversizedBytes)
			}
			f.Size = n
		default:
			return Fault{}, fmt.Errorf("simulate: unknown fault parameter %q (want after, for or size)", key)
		}
	}
	return f, nil
}
