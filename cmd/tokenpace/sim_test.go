package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/simulate"
)

// newSimClient returns an openai-go client of base without retries, whose
// connections close when the test ends.
func newSimClient(t *testing.T, base string) openai.Client {
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	return openai.NewClient(option.WithBaseURL(base), option.WithHTTPClient(hc), option.WithAPIKey("x"), option.WithMaxRetries(0))
}

func TestSimServesUntilCancelled(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		model string
	}{
		{"fixed timing", []string{"--ttft", "20ms", "--itl", "1ms"}, "sim"},
		{"hardware model", []string{"--model", "llama-3.2-1b", "--gpu", "h100-sxm"}, "llama-3.2-1b"},
		{"served name and faults off", []string{"--ttft", "1ms", "--served-name", "small", "--fault-header"}, "small"},
		{"a fault's shape beside its rate", []string{"--ttft", "1ms", "--fault-stall", "0", "--fault-slow-headers", "0", "--fault-429", "0.01", "--fault-for", "2s", "--fault-seed", "1"}, "sim"},
		{"precise timer", []string{"--ttft", "2ms", "--itl", "1ms", "--precise-timer"}, "sim"},
		// Every interface: the URL printed was http://[::]:PORT/v1, which
		// not every system's client reaches.
		{"every interface", []string{"--addr", ":0", "--ttft", "1ms"}, "sim"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			outR, outW := io.Pipe()
			var stderr bytes.Buffer
			code := make(chan int, 1)
			go func() {
				code <- runSim(ctx, append([]string{"--addr", "127.0.0.1:0"}, tt.args...), outW, &stderr)
				outW.Close()
			}()
			line, err := bufio.NewReader(outR).ReadString('\n')
			if err != nil {
				t.Fatalf("reading the base URL: %v (exit %d, stderr %q)", err, <-code, stderr.String())
			}
			go io.Copy(io.Discard, outR)
			base := strings.TrimSpace(line)
			if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
				t.Fatalf("base URL = %q, want http://127.0.0.1:PORT/v1", base)
			}
			c := newSimClient(t, base)
			res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model:     tt.model,
				Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				MaxTokens: openai.Int(3),
			})
			if err != nil {
				t.Fatalf("chat completion: %v", err)
			}
			if got := res.Usage.CompletionTokens; got != 3 {
				t.Errorf("usage.completion_tokens = %d, want 3", got)
			}
			cancel()
			if got := <-code; got != 0 {
				t.Errorf("runSim exit = %d, want 0 (stderr %q)", got, stderr.String())
			}
		})
	}
}

func TestSimRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown model", []string{"--model", "no-such-model"}, "no-such-model"},
		{"unknown gpu", []string{"--gpu", "no-such-gpu"}, "no-such-gpu"},
		{"negative ttft", []string{"--ttft", "-1s"}, "negative"},
		{"fixed timing and hardware", []string{"--ttft", "1s", "--gpu", "l4"}, "excludes"},
		{"fault rate over 1", []string{"--ttft", "1ms", "--fault-429", "1.5"}, "out of range"},
		{"zero chunk tokens", []string{"--ttft", "1ms", "--chunk-tokens", "0"}, "chunk tokens"},
		{"stray argument", []string{"extra"}, "unexpected"},
		{"bad address", []string{"--ttft", "1ms", "--addr", "127.0.0.1:-1"}, "listen"},
		{"zero idle timeout", []string{"--ttft", "1ms", "--idle-timeout", "0"}, "must be positive"},
		{"zero write timeout", []string{"--ttft", "1ms", "--write-timeout", "0"}, "must be positive"},
		{"tool call without a name", []string{"--ttft", "1ms", "--tool-call", `{"city":"Paris"}`}, "NAME=JSON"},
		{"tool call arguments not JSON", []string{"--ttft", "1ms", "--tool-call", `get_weather={city}`}, "not valid JSON"},
		{"tool call arguments an array", []string{"--ttft", "1ms", "--tool-call", `get_weather=[1]`}, "not a JSON object"},
		{"tool call arguments null", []string{"--ttft", "1ms", "--tool-call", `get_weather=null`}, "not a JSON object"},
		// A shape with no fault of its kind drawn: the server ran without
		// the fault, and said nothing.
		{"fault after without a rate", []string{"--ttft", "1ms", "--fault-after", "5"}, "--fault-reset, --fault-stall"},
		{"fault after beside a status fault", []string{"--ttft", "1ms", "--fault-500", "0.1", "--fault-after", "5"}, "none is set"},
		{"fault for with the header alone", []string{"--ttft", "1ms", "--fault-header", "--fault-for", "2s"}, "takes its own parameters"},
		{"fault size without oversized", []string{"--ttft", "1ms", "--fault-reset", "0.1", "--fault-size", "1024"}, "--fault-size shapes only"},
		{"fault seed without a rate", []string{"--ttft", "1ms", "--fault-seed", "7"}, "--fault-seed seeds"},
		{"fault rates over 1 in all", []string{"--ttft", "1ms", "--fault-truncated", "0.6", "--fault-error-event", "0.6"}, "sum to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := runSim(context.Background(), tt.args, &stdout, &stderr)
			if got == 0 {
				t.Fatalf("runSim(%q) exit = 0, want non-zero", tt.args)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("runSim(%q) stderr = %q, want it to mention %q", tt.args, stderr.String(), tt.want)
			}
		})
	}
}

func TestSimFaultFlags(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- runSim(ctx, []string{"--addr", "127.0.0.1:0", "--ttft", "1ms", "--fault-429", "1", "--fault-for", "3s"}, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the base URL: %v (stderr %q)", err, stderr.String())
	}
	go io.Copy(io.Discard, outR)
	c := newSimClient(t, strings.TrimSpace(line))
	_, err = c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "sim",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Response.Header.Get("Retry-After") != "3" {
		t.Errorf("with --fault-429 1: error = %v, want 429 with Retry-After 3", err)
	}
	cancel()
	if got := <-code; got != 0 {
		t.Errorf("runSim exit = %d, want 0", got)
	}
}

// Each --fault-NAME flag's usage reads as one phrase: "share of requests"
// followed by what befalls them, never by a second noun ("share of
// requests streams that ...").
func TestSimFaultFlagUsage(t *testing.T) {
	f := newSimFlags(io.Discard)
	for _, row := range simulate.FaultTable() {
		usage := f.fs.Lookup("fault-" + row.Name).Usage
		rest, _ := strings.CutPrefix(usage, "share of requests ")
		if !strings.HasPrefix(rest, "answered ") && !strings.HasPrefix(rest, "whose ") {
			t.Errorf("--fault-%s usage = %q, want \"share of requests answered …\" or \"… whose …\"", row.Name, usage)
		}
	}
}
