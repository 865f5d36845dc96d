package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tokenpace/tokenpace/simulate"
)

// benchShapes is what plan reads from a `tokenpace bench --json` report:
// the run's load and the request shapes it measured.
type benchShapes struct {
	Planned      int     `json:"planned_requests"`
	Concurrency  int     `json:"concurrency"`
	Rate         float64 `json:"rate"`
	PromptTokens int     `json:"prompt_tokens"`
	MaxTokens    int     `json:"max_tokens"`
	Completed    int64   `json:"completed"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	ReqPerSecond float64 `json:"request_throughput"`
	// Load describes a replayed trace or sessions; Turns is set for
	// sessions, whose turns carry the conversation so far.
	Load  string          `json:"load"`
	Turns json.RawMessage `json:"turns"`
}

// maxWorkloadFile bounds a --workload file (a trace of about 10 million
// requests).
const maxWorkloadFile = 256 << 20

// readWorkloadFile reads --workload: a bench --json report (an object over
// several lines) or a trace of any format trace.Read reads, cut and sped up
// as tf says. For a bench report, w gives the seed and the
// request count when the report lacks one, and the report's own rate (or,
// for a closed loop, its measured request rate), prompt tokens and mean
// output tokens replace w's, and the load is returned so that further
// samples can be drawn of it (nil for a trace, which is one draw). A
// request count in w (--requests) wins over the report's.
func readWorkloadFile(path string, w simulate.Workload, tf *traceFlags) ([]simulate.Arrival, *simulate.Workload, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, "", err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(64)
	if trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(trimmed) > 0 && trimmed[0] == '{' && !bytes.Contains(head, []byte(`"timestamp"`)) {
		var b benchShapes
		dec := json.NewDecoder(io.LimitReader(br, maxWorkloadFile))
		if err := dec.Decode(&b); err != nil {
			return nil, nil, "", fmt.Errorf("--workload %s: not a bench --json report: %v", path, err)
		}
		switch {
		case len(b.Turns) > 0 && string(b.Turns) != "null":
			return nil, nil, "", fmt.Errorf("--workload %s: a report of %s: its prompts grew turn by turn, and plan cannot read them from prompt_tokens", path, b.Load)
		case strings.HasPrefix(b.Load, "trace "):
			return nil, nil, "", fmt.Errorf("--workload %s: a report of a replayed %s: give plan the trace itself", path, b.Load)
		}
		w.Rate = b.Rate
		if w.Rate == 0 {
			w.Rate = b.ReqPerSecond
		}
		w.Prompt.Mean = b.PromptTokens
		w.Output.Mean = b.MaxTokens
		if b.Completed > 0 && b.OutputTokens > 0 {
			w.Output.Mean = int(float64(b.OutputTokens)/float64(b.Completed) + 0.5)
		}
		if b.Planned > 0 && w.Requests == 0 {
			w.Requests = b.Planned
		}
		if !(w.Rate > 0) || w.Prompt.Mean < 1 || w.Output.Mean < 1 {
			return nil, nil, "", fmt.Errorf("--workload %s: the bench report has no rate, prompt or output length to plan for", path)
		}
		if w.Rate < minRate || w.Rate > maxRate {
			return nil, nil, "", fmt.Errorf("--workload %s: the bench report's rate %g: want requests per second in [%g, %g]", path, w.Rate, minRate, maxRate)
		}
		if err := checkArrivalSpan(w.Rate, w.Requests); err != nil {
			return nil, nil, "", fmt.Errorf("--workload %s: %d requests at %g/s: %w", path, w.Requests, w.Rate, err)
		}
		a, err := w.Arrivals()
		return a, &w, fmt.Sprintf("the shapes of bench report %s: %d requests at %.3g/s, %d prompt and %d output tokens", path, len(a), w.Rate, w.Prompt.Mean, w.Output.Mean), err
	}
	tr, err := tf.open(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("--workload: %w", err)
	}
	return tr.Arrivals(), nil, tf.describe(tr), nil
}
