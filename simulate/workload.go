package simulate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Process is how a Workload's requests arrive.
type Process int

const (
	// PoissonProcess: exponential gaps of mean 1/Rate, the open-loop load
	// of independent users.
	PoissonProcess Process = iota
	// ConstantProcess: one request every 1/Rate exactly.
	ConstantProcess
	// GammaProcess: gamma-distributed gaps of mean 1/Rate and coefficient
	// of variation Workload.Burstiness: above 1 requests come in bursts
	// with lulls between (CV 1 is Poisson), below 1 more evenly.
	GammaProcess
)

// TokenDist is a distribution of token counts. The zero value always
// draws 1.
type TokenDist struct {
	// Mean is the mean count; below 1 counts as 1.
	Mean int
	// CV is the coefficient of variation (standard deviation / mean);
	// zero means every draw is Mean, otherwise draws are log-normal with
	// that spread (LLM prompt and output lengths are long-tailed), rounded
	// and clamped to [1, 16·Mean].
	CV float64
}

func (d TokenDist) draw(rng *rand.Rand) int {
	m := max(d.Mean, 1)
	if d.CV <= 0 {
		return m
	}
	s2 := math.Log(1 + d.CV*d.CV)
	mu := math.Log(float64(m)) - s2/2
	v := math.Exp(mu + math.Sqrt(s2)*rng.NormFloat64())
	return int(min(max(math.Round(v), 1), 16*float64(m)))
}

// Workload describes synthetic load: Requests requests arriving at Rate per
// second, with prompt and output lengths drawn from Prompt and Output.
// The same Workload always yields the same arrivals.
type Workload struct {
	// Rate is the arrival rate in requests per second; zero or less means
	// every request arrives at time 0 (a batch job).
	Rate float64
	// Process is the arrival process; zero is PoissonProcess.
	Process Process
	// Requests is how many requests arrive; zero means 1000.
	Requests int
	// Prompt and Output are the length distributions.
	Prompt, Output TokenDist
	// PrefixTokens is how many leading prompt tokens are shared with
	// other requests (a system prompt); zero means none.
	PrefixTokens int
	// Prefixes is how many distinct shared prefixes there are, assigned
	// in turn; zero means 1 when PrefixTokens is set.
	Prefixes int
	// Burstiness is the coefficient of variation of the gaps between
	// arrivals of a GammaProcess; zero means 1 (as bursty as Poisson).
	Burstiness float64
	// Seed seeds the arrival times and lengths.
	Seed uint64
}

// maxWorkloadRequests bounds the requests one workload may generate.
const maxWorkloadRequests = 10_000_000

// Arrivals generates the workload's requests, with IDs 1..n, in arrival
// order. A negative or oversized figure yields an *InvalidError.
func (w Workload) Arrivals() ([]Arrival, error) {
	n := orI(w.Requests, 1000)
	switch {
	case n < 0 || n > maxWorkloadRequests:
		return nil, &InvalidError{Field: "requests", Value: n, Reason: fmt.Sprintf("must be in [1, %d]", maxWorkloadRequests)}
	case math.IsNaN(w.Rate) || math.IsInf(w.Rate, 0):
		return nil, &InvalidError{Field: "rate", Value: w.Rate, Reason: "must be finite"}
	case w.Prompt.CV < 0 || w.Output.CV < 0 || math.IsNaN(w.Prompt.CV) || math.IsNaN(w.Output.CV):
		return nil, &InvalidError{Field: "length CV", Value: [2]float64{w.Prompt.CV, w.Output.CV}, Reason: "must not be negative"}
	case w.PrefixTokens < 0 || w.Prefixes < 0:
		return nil, &InvalidError{Field: "prefix", Value: [2]int{w.PrefixTokens, w.Prefixes}, Reason: "must not be negative"}
	case w.Burstiness < 0 || w.Burstiness > 100 || math.IsNaN(w.Burstiness):
		return nil, &InvalidError{Field: "burstiness", Value: w.Burstiness, Reason: "must be in [0, 100]"}
	case w.Process != PoissonProcess && w.Process != ConstantProcess && w.Process != GammaProcess:
		return nil, &InvalidError{Field: "arrival process", Value: int(w.Process), Reason: "unknown"}
	}
	rng := rand.New(rand.NewPCG(w.Seed, w.Seed^0x9e3779b97f4a7c15))
	prefixes := max(w.Prefixes, 1)
	out := make([]Arrival, n)
	var t float64
	for i := range out {
		if w.Rate > 0 && i > 0 {
			switch w.Process {
			case ConstantProcess:
				t = float64(i) / w.Rate
			case GammaProcess:
				cv := w.Burstiness
				if cv == 0 {
					cv = 1
				}
				k := 1 / (cv * cv)
				t += gamma(rng, k) / (k * w.Rate)
			default:
				t += rng.ExpFloat64() / w.Rate
			}
		}
		r := Request{ID: uint64(i + 1), PromptTokens: w.Prompt.draw(rng), OutputTokens: w.Output.draw(rng)}
		if w.PrefixTokens > 0 {
			r.PrefixKey = "prefix-" + strconv.Itoa(i%prefixes)
			r.PrefixTokens = min(w.PrefixTokens, r.PromptTokens)
		}
		out[i] = Arrival{At: time.Duration(math.Round(t * 1e9)), Request: r}
	}
	return out, nil
}

// maxTraceBytes bounds a trace ReadTrace accepts (about 10 million lines).
const maxTraceBytes = 256 << 20

// ReadTrace reads a workload from CSV lines
// "arrival_s,prompt_tokens,output_tokens[,prefix_id]": arrival in seconds
// since the start, token counts, and an optional shared-prefix name whose
// requests share their first half of the prompt (a system prompt). A
// first line that names those columns, in that order and in any case, is
// the header and is skipped; any other line whose first field is not a
// number is malformed, not skipped. Blank lines and lines starting with
// '#' are skipped. Requests get IDs 1..n in file order. A malformed line
// yields an *InvalidError naming the line; more than 256 MiB of input is
// refused.
func ReadTrace(r io.Reader) ([]Arrival, error) {
	lr := &io.LimitedReader{R: r, N: maxTraceBytes + 1}
	cr := csv.NewReader(lr)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	var out []Arrival
	first := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if lr.N <= 0 {
			return nil, &InvalidError{Field: "trace", Value: fmt.Sprintf("%d bytes", maxTraceBytes), Reason: "too large"}
		}
		if err != nil {
			return nil, &InvalidError{Field: "trace", Value: "CSV", Reason: err.Error()}
		}
		if first {
			first = false
			if _, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64); err != nil {
				// A header, if it names the columns: a line of anything
				// else is an error, not skipped in silence.
				if !traceHeader(rec) {
					l, _ := cr.FieldPos(0)
					return nil, &InvalidError{Field: fmt.Sprintf("trace line %d", l), Value: strings.Join(rec, ","),
						Reason: "neither a request nor the header arrival_s,prompt_tokens,output_tokens[,prefix_id]"}
				}
				continue
			}
		}
		a, err := parseTraceRecord(rec, len(out)+1)
		if err != nil {
			l, _ := cr.FieldPos(0)
			return nil, &InvalidError{Field: fmt.Sprintf("trace line %d", l), Value: strings.Join(rec, ","), Reason: err.Error()}
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, &InvalidError{Field: "trace", Value: 0, Reason: "holds no request"}
	}
	return out, nil
}

// traceHeader reports whether rec is a trace's header: the columns'
// names, in order.
func traceHeader(rec []string) bool {
	names := []string{"arrival_s", "prompt_tokens", "output_tokens", "prefix_id"}
	if len(rec) < 3 || len(rec) > len(names) {
		return false
	}
	for i, f := range rec {
		if !strings.EqualFold(strings.TrimSpace(f), names[i]) {
			return false
		}
	}
	return true
}

func parseTraceRecord(rec []string, id int) (Arrival, error) {
	if len(rec) < 3 || len(rec) > 4 {
		return Arrival{}, fmt.Errorf("want 3 or 4 fields (arrival_s,prompt_tokens,output_tokens[,prefix_id]), got %d", len(rec))
	}
	at, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
	if err != nil || !(at >= 0 && at <= 1e9) {
		return Arrival{}, fmt.Errorf("arrival_s %q must be a number of seconds in [0, 1e9]", rec[0])
	}
	var n [2]int
	for i, name := range []string{"prompt_tokens", "output_tokens"} {
		n[i], err = strconv.Atoi(strings.TrimSpace(rec[i+1]))
		if err != nil || n[i] < 1 || n[i] > 1<<24 {
			return Arrival{}, fmt.Errorf("%s %q must be an integer in [1, %d]", name, rec[i+1], 1<<24)
		}
	}
	r := Request{ID: uint64(id), PromptTokens: n[0], OutputTokens: n[1]}
	if len(rec) == 4 {
		if key := strings.TrimSpace(rec[3]); key != "" {
			r.PrefixKey, r.PrefixTokens = key, n[0]/2
		}
	}
	return Arrival{At: time.Duration(math.Round(at * 1e9)), Request: r}, nil
}
