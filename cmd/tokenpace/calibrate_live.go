package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

// calibrateEndpoint is what calibrate --base-url sends its runs to.
type calibrateEndpoint struct {
	client *tokenpace.Client
	close  func()
	// firstModel returns the first model the server lists; nil when the
	// endpoint cannot say.
	firstModel func(context.Context) (string, error)
}

// dialCalibrate connects to the endpoint at baseURL with the API key in
// the environment variable keyEnv (any key for a local server). Tests
// replace it to reach an in-memory simulator.
var dialCalibrate = func(baseURL, keyEnv string) (*calibrateEndpoint, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--base-url %q: want an http:// or https:// URL such as http://localhost:8000/v1", baseURL)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 128
	hc := &http.Client{Transport: tr}
	if err := checkKeyVariable(keyEnv); err != nil {
		return nil, err
	}
	key := os.Getenv(keyEnv)
	if key == "" {
		if keyEnv != "OPENAI_API_KEY" {
			return nil, fmt.Errorf("--api-key-env: environment variable %s is empty", keyEnv)
		}
		key = "none" // local servers take any key; openai-go wants one
	}
	oc := openai.NewClient(option.WithBaseURL(baseURL), option.WithHTTPClient(hc), option.WithAPIKey(key), option.WithMaxRetries(0))
	return &calibrateEndpoint{client: tokenpace.NewClient(oc), close: hc.CloseIdleConnections, firstModel: func(ctx context.Context) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		page, err := listModels(ctx, oc)
		switch {
		case err != nil:
			return "", fmt.Errorf("listing its models: %w", err)
		case len(page.Data) == 0:
			return "", errors.New("it lists no model")
		}
		return page.Data[0].ID, nil
	}}, nil
}

// calibrationPrompts returns the parameters of request i of a run: a
// prompt of s.PromptTokens tokens whose first s.CachedTokens are the same
// system message in every request of every run of one calibration (set
// by seed's bits from 40 up: what a server's prefix cache holds), the
// rest a user message of its own, set by seed and i.
func calibrationPrompts(model string, s simulate.Scenario, seed uint64) func(i int) openai.ChatCompletionNewParams {
	words := func(rng *rand.Rand, n int) string {
		var b strings.Builder
		b.Grow(n * 4)
		for range max(n, 1) {
			b.WriteByte(' ')
			b.WriteString(promptWords[rng.IntN(len(promptWords))])
		}
		return b.String()
	}
	// Each message costs four tokens of framing, the reply three.
	prefix := ""
	if s.CachedTokens > 0 {
		// The same for every run of a calibration (seed's high bits).
		prefix = words(rand.New(rand.NewPCG(seed&^(1<<40-1), 1<<62)), s.CachedTokens-4)
	}
	rest := s.PromptTokens - promptOverhead
	if prefix != "" {
		rest = s.PromptTokens - s.CachedTokens - promptOverhead
	}
	return func(i int) openai.ChatCompletionNewParams {
		var msgs []openai.ChatCompletionMessageParamUnion
		if prefix != "" {
			msgs = append(msgs, openai.SystemMessage(prefix))
		}
		msgs = append(msgs, openai.UserMessage(words(rand.New(rand.NewPCG(seed, uint64(i))), rest)))
		return openai.ChatCompletionNewParams{Model: model, Messages: msgs, MaxTokens: openai.Int(int64(s.OutputTokens))}
	}
}

// measure runs one designed load against the endpoint, a closed loop as
// bench runs it, and returns the scenario it ran (output tokens as
// served) with its mean TTFT and TPOT as observations.
func measure(ctx context.Context, ep *calibrateEndpoint, model string, s simulate.Scenario, timeout time.Duration, seed uint64) ([]simulate.Observation, error) {
	n := max(s.Requests, s.Concurrency)
	if s.CachedTokens > 0 {
		// Put the shared prefix in the server's cache first, as the
		// prediction assumes.
		warm := s
		warm.Concurrency, warm.Requests, warm.OutputTokens = 1, 1, 1
		w := &loadGen{client: ep.client, params: calibrationPrompts(model, warm, seed+1<<32), recorder: metrics.NewRecorder(),
			requests: 1, concurrency: 1, timeout: timeout, progress: noProgress{}}
		if r := w.run(ctx); r.snap.Completed == 0 {
			return nil, fmt.Errorf("the request that warms the prefix cache failed")
		}
	}
	lg := &loadGen{
		client: ep.client, params: calibrationPrompts(model, s, seed), recorder: metrics.NewRecorder(),
		requests: n, concurrency: s.Concurrency, timeout: timeout, seed: seed, progress: noProgress{},
	}
	res := lg.run(ctx)
	snap := res.snap
	if snap.Completed == 0 {
		return nil, fmt.Errorf("no request of the run completed (%d failed: %s)", snap.Failed, errorCounts(snap.Errors))
	}
	out := int(snap.OutputTokens / snap.Completed)
	if out < s.OutputTokens/2 {
		return nil, fmt.Errorf("the server returned %d output tokens per request where %d were asked: calibrate needs it to honour max_tokens (ignore EOS)", out, s.OutputTokens)
	}
	s.OutputTokens = out
	s.Requests = n
	s.CachedTokens = servedCache(s, snap)
	obs := []simulate.Observation{{Scenario: s, Metric: simulate.MetricTTFT, Value: msf(snap.TTFT.Mean)}}
	if out > 1 && snap.TPOT.Count > 0 {
		obs = append(obs, simulate.Observation{Scenario: s, Metric: simulate.MetricTPOT, Value: msf(snap.TPOT.Mean)})
	}
	return obs, nil
}

// servedCache returns the prompt tokens per request of s that the
// server's cache served in the run snap sums up, when the server says so
// (its usage counts cached tokens): the run is what it did, not what the
// design assumed (a server whose slots keep caches of their own,
// llama.cpp's, serves a prefix only to the slot that holds it). A server
// that counts none leaves the design's figure: it may cache without
// saying (vLLM without --enable-prompt-tokens-details).
func servedCache(s simulate.Scenario, snap metrics.Snapshot) int {
	if snap.CachedTokens <= 0 || snap.InputTokens <= 0 {
		return s.CachedTokens
	}
	share := float64(snap.CachedTokens) / float64(snap.InputTokens)
	return max(min(int(share*float64(s.PromptTokens)+0.5), s.PromptTokens-1), 0)
}

// errorCounts lists failures by error type, e.g. "404 ×3", in order.
func errorCounts(errs map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, errs[k]))
	}
	return strings.Join(parts, ", ")
}

// runDesigned measures the runs DesignCalibration picks for d, showing
// each as it goes on progress, and returns the observations to fit and
// those held out to check the fit.
func runDesigned(ctx context.Context, ep *calibrateEndpoint, model string, d simulate.Deployment, timeout time.Duration, progress io.Writer) (fit, check []simulate.Observation, err error) {
	fitRuns, checkRuns, err := plan.DesignCalibration(d)
	if err != nil {
		return nil, nil, err
	}
	all := append(append([]plan.CalibrationRun(nil), fitRuns...), checkRuns...)
	// Prompts of their own at every calibration: a server keeps what it
	// served before in its prompt cache (llama.cpp's in host memory, vLLM's
	// and SGLang's in GPU memory), and a second calibration that sent the
	// first one's prompts again would measure cache hits, not prefills.
	nonce := rand.Uint64() &^ (1<<40 - 1)
	for i, r := range all {
		s := r.Scenario
		fmt.Fprintf(progress, "run %d/%d: %d clients × %d requests, %d-token prompts (%d shared), %d output tokens — %s\n",
			i+1, len(all), s.Concurrency, max(s.Requests, s.Concurrency), s.PromptTokens, s.CachedTokens, s.OutputTokens, r.Purpose)
		obs, err := measure(ctx, ep, model, s, timeout, nonce+uint64(i+1))
		if err != nil {
			return nil, nil, fmt.Errorf("run %d (%s): %w", i+1, r.Purpose, err)
		}
		for _, o := range obs {
			fmt.Fprintf(progress, "  %s %s\n", o.Metric, num(o.Value))
		}
		if i < len(fitRuns) {
			fit = append(fit, obs...)
		} else {
			check = append(check, obs...)
		}
	}
	return fit, check, nil
}

// num formats a figure with up to three decimals.
func num(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}
