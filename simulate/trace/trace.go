package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"
)

// Request is one traced request.
type Request struct {
	// At is its arrival since the trace's first request.
	At time.Duration
	// PromptTokens and OutputTokens are its traced lengths; OutputTokens
	// is at least 1 (a traced 0 is replayed as 1).
	PromptTokens, OutputTokens int
	// Blocks are the hash ids of its prompt's blocks of Trace.BlockTokens
	// tokens, in order: the same id is the same block. Nil when the format
	// does not say (Azure, BurstGPT).
	Blocks []uint64
	// Prefix names a shared prefix of the first half of the prompt (the
	// tokenpace CSV's prefix_id); "" when there is none.
	Prefix string
}

// Trace is a trace read into memory, in arrival order.
type Trace struct {
	// Name is the file it was read from, for messages.
	Name string
	// Format is the format it was read in.
	Format Format
	// Requests are its requests, in arrival order.
	Requests []Request
	// BlockTokens is the token count of one hash block (512 for
	// Mooncake); zero when the requests have no Blocks.
	BlockTokens int
	// Failed counts the requests the traced service failed (BurstGPT rows
	// with 0 response tokens), which are not in Requests.
	Failed int
}

// MooncakeBlockTokens is the block size of the published Mooncake traces.
const MooncakeBlockTokens = 512

// Limits on what Read accepts.
const (
	maxBytes     = 1 << 30 // a file
	maxLineBytes = 16 << 20
	maxTokens    = 1 << 24 // a prompt or an output
)

// LineError is a malformed trace line.
type LineError struct {
	// Name is the file, Line the 1-based line number.
	Name string
	Line int
	// Err says what is wrong and what was expected.
	Err error
}

// Error returns "file:line: what is wrong".
func (e *LineError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
}

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }

// Open reads the trace at path in format f (Auto: detected).
func Open(path string, f Format) (*Trace, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return Read(file, path, f)
}

// Read reads a trace in format f (Auto: detected from the first line);
// name names it in errors. A malformed line yields a *LineError; a trace
// with no request, or over 1 GiB, an error.
func Read(r io.Reader, name string, f Format) (*Trace, error) {
	lr := &io.LimitedReader{R: r, N: maxBytes + 1}
	br := bufio.NewReaderSize(lr, 64<<10)
	if f == Auto {
		head, _ := br.Peek(512)
		line, _, _ := bytes.Cut(head, []byte("\n"))
		f = detect(line)
	}
	t := &Trace{Name: name, Format: f}
	var err error
	switch f {
	case Azure:
		err = t.readAzure(br)
	case BurstGPT:
		err = t.readBurstGPT(br)
	case Mooncake:
		t.BlockTokens = MooncakeBlockTokens
		err = t.readMooncake(br)
	case CSV:
		err = t.readCSV(br)
	default:
		return nil, fmt.Errorf("trace: unknown format %v", f)
	}
	switch {
	case lr.N <= 0:
		return nil, fmt.Errorf("%s: over %d MiB: too large for a trace", name, maxBytes>>20)
	case err != nil:
		return nil, err
	case len(t.Requests) == 0:
		return nil, fmt.Errorf("%s: holds no request (read as %v)", name, f)
	}
	t.sort()
	return t, nil
}

// sort puts the requests in arrival order and makes the first arrive at 0.
func (t *Trace) sort() {
	slices.SortStableFunc(t.Requests, func(a, b Request) int { return int(a.At - b.At) })
	first := t.Requests[0].At
	for i := range t.Requests {
		t.Requests[i].At -= first
	}
}

// Duration is the time from the first arrival to the last.
func (t *Trace) Duration() time.Duration { return t.Requests[len(t.Requests)-1].At }

// Window returns the requests that arrive in [start, start+d), shifted to
// arrive from 0; d 0 means to the end. It is an error to leave none.
func (t *Trace) Window(start, d time.Duration) (*Trace, error) {
	if start < 0 || d < 0 {
		return nil, fmt.Errorf("trace: window start %v and duration %v must not be negative", start, d)
	}
	w := *t
	w.Requests = nil
	for _, r := range t.Requests {
		if r.At >= start && (d == 0 || r.At < start+d) {
			r.At -= start
			w.Requests = append(w.Requests, r)
		}
	}
	if len(w.Requests) == 0 {
		return nil, fmt.Errorf("%s: no request arrives in the window [%v, %v) of its %v", t.Name, start, start+d, t.Duration())
	}
	w.sort()
	return &w, nil
}

// Speedup returns the trace with every gap between arrivals divided by x:
// x 2 replays it at twice the rate.
func (t *Trace) Speedup(x float64) (*Trace, error) {
	if !(x > 0) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("trace: speedup must be a positive number, got %v", x)
	}
	s := *t
	s.Requests = slices.Clone(t.Requests)
	for i := range s.Requests {
		s.Requests[i].At = time.Duration(math.Round(float64(s.Requests[i].At) / x))
	}
	return &s, nil
}

// Rate is the mean arrival rate in requests per second; 0 for a trace
// whose requests all arrive at once.
func (t *Trace) Rate() float64 {
	if d := t.Duration(); d > 0 {
		return float64(len(t.Requests)-1) / d.Seconds()
	}
	return 0
}
