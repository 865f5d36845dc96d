// Command autocomplete is ghost text in an editor: a scripted typist types
// code at 5 characters a second, every keystroke asks a model for a
// fill-in-the-middle completion (the code before the cursor as the prompt,
// the code after it as the suffix, on the completions endpoint that code
// models serve), and each new keystroke supersedes the request still in
// flight (latest wins, with tokenpace.Latest), since a suggestion for a
// line the user has already changed is worthless.
//
// A suggestion is useful only if its first characters appear within 150 ms
// of the keystroke: later, the user has typed on. For each model the
// example counts the suggestions shown in time, those shown late, and those
// superseded before any token came.
//
// With --type-ahead, a keystroke that types what the suggestion on screen
// starts with does not send a request: tokenpace.Latest hands the rest of
// that suggestion over at once (type-ahead reuse). On the simulator,
// --accept is the share of suggestions that are what the typist goes on to
// type (drawn per cursor position), the others something else.
//
// By default it runs against a simulator started in process that serves a
// 1B and an 8B model on one RTX 4090, 30 ms of round trip away; --base-url
// and OPENAI_API_KEY point it at a real OpenAI-compatible endpoint:
//
//	go run ./examples/autocomplete
//	go run ./examples/autocomplete --type-ahead
//	go run ./examples/autocomplete --base-url http://localhost:8000/v1 --models MODEL1,MODEL2
//
// Against llama.cpp's llama-server, whose /v1/completions drops the
// suffix, the client sends fill-in-the-middle to its /infill endpoint; the
// model needs fill-in-the-middle tokens (a code model).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/simulate"
)

// config is what the flags set.
type config struct {
	models []string
	// deadline is how soon after its keystroke a suggestion must appear.
	deadline time.Duration
	// cps is the typing speed in characters per second; keystrokes come
	// (1 ± jitter)/cps apart, drawn uniformly with seed.
	cps       float64
	jitter    float64
	seed      uint64
	maxTokens int
	text      string
	// typeAhead reuses the suggestion in flight when the typist types
	// what it starts with (Latest.NewCompletionStreaming).
	typeAhead bool
	// accept is the share of the simulator's suggestions that are what
	// the typist types next; 0 leaves the simulator's own text.
	accept float64
}

func main() {
	cfg := config{text: typed}
	baseURL := flag.String("base-url", "", "OpenAI-compatible API base URL (default: a simulator started in process)")
	models := flag.String("models", "llama-3.2-1b,llama-3.1-8b", "comma-separated models to compare")
	flag.DurationVar(&cfg.deadline, "deadline", 150*time.Millisecond, "a suggestion is in time if its first token arrives this soon after the keystroke")
	flag.Float64Var(&cfg.cps, "cps", 5, "typing speed, characters per second")
	flag.Float64Var(&cfg.jitter, "jitter", 0.6, "irregularity of the typing rhythm in [0, 1): gaps vary by this share around 1/cps")
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the typing rhythm")
	flag.IntVar(&cfg.maxTokens, "max-tokens", 16, "max_tokens of each suggestion")
	flag.BoolVar(&cfg.typeAhead, "type-ahead", false, "reuse the suggestion in flight when the typist types what it starts with")
	flag.Float64Var(&cfg.accept, "accept", 0.5, "simulator only: share of suggestions that are what the typist types next")
	flag.Parse()
	var err error
	if cfg.models, err = parseModels(*models); err != nil {
		fmt.Fprintln(os.Stderr, "autocomplete:", err)
		os.Exit(2)
	}
	if cfg.cps <= 0 || cfg.jitter < 0 || cfg.jitter >= 1 || cfg.maxTokens < 1 || cfg.accept < 0 || cfg.accept > 1 {
		fmt.Fprintln(os.Stderr, "autocomplete: want --cps > 0, --jitter in [0, 1), --max-tokens ≥ 1 and --accept in [0, 1]")
		os.Exit(2)
	}

	endpoint.Main("autocomplete", *baseURL, func() ([]simulate.Option, error) { return simOptions(cfg) }, func(ctx context.Context, ep endpoint.Endpoint) error {
		_, err := run(ctx, os.Stdout, ep, cfg)
		return err
	})
}

// parseModels reads --models: names separated by commas, spaces around
// them trimmed ("a, b" is a and b); an empty name is an error.
func parseModels(s string) ([]string, error) {
	names := strings.Split(s, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" {
			return nil, fmt.Errorf("--models %q: model %d of %d has no name; want names separated by commas", s, i+1, len(names))
		}
	}
	return names, nil
}

// fileContext is the top of the file being edited: the start of every
// prompt, so servers with a prefix cache keep its prefill.
var fileContext = "package server\n\n" + strings.Repeat("// handleItem validates an item, stores it and reports the outcome.\nfunc handleItem(ctx context.Context, it Item) error {\n\tif err := it.Validate(); err != nil {\n\t\treturn fmt.Errorf(\"invalid item %s: %w\", it.ID, err)\n\t}\n\treturn store.Put(ctx, it)\n}\n\n", 12)

// recentCode is the code just above the cursor, sent with every
// keystroke: its prefill is paid on every request.
var recentCode = strings.Repeat("\tif o.Quantity <= 0 {\n\t\treturn fmt.Errorf(\"order %s: quantity %d must be positive\", o.ID, o.Quantity)\n\t}\n", 8)

// belowCursor is the code after the cursor: the suffix of every request.
const belowCursor = "\n\treturn store.Put(ctx, o)\n}\n"

// typed is what the typist types, one keystroke per byte.
const typed = "\tif err := o.Validate(); err != nil {\n"

// stats is what one model's run counted.
type stats struct {
	model      string
	keystrokes int
	// inTime suggestions showed their first token within the deadline,
	// late ones after it; superseded ones were cancelled by the next
	// keystroke before any token; failed ones ended with an error.
	inTime, late, superseded, failed int
	// requests counts the requests sent: fewer than keystrokes with
	// type-ahead reuse.
	requests int
	// shown holds the time from keystroke to first token of every shown
	// suggestion.
	shown []time.Duration
	// firstErr is the error of the first failed request, nil if none.
	firstErr error
}

// run types cfg.text once per model, prints one line per model to w and
// returns the counts.
func run(ctx context.Context, w io.Writer, ep endpoint.Endpoint, cfg config) ([]stats, error) {
	client := tokenpace.NewClient(ep.Client())

	fmt.Fprintf(w, "typing %d characters at %g/s; a suggestion is in time if its first token comes within %v of the keystroke\n\n",
		len(cfg.text), cfg.cps, cfg.deadline)
	fmt.Fprintf(w, "%-16s %10s %8s %8s %5s %11s %7s %9s %9s %9s\n", "model", "keystrokes", "requests", "in time", "late", "superseded", "failed", "p50 TTFT", "p90 TTFT", "p99 TTFT")
	// One typist per model, all at once: each model has its own server.
	all := make([]stats, len(cfg.models))
	errs := make([]error, len(cfg.models))
	var wg sync.WaitGroup
	for i, m := range cfg.models {
		wg.Go(func() { all[i], errs[i] = typeText(ctx, client, m, cfg) })
	}
	wg.Wait()
	// An interrupted run still prints what it measured.
	for _, s := range all {
		fmt.Fprintf(w, "%-16s %10d %8d %8d %5d %11d %7d %9s %9s %9s\n", s.model, s.keystrokes, s.requests, s.inTime, s.late, s.superseded, s.failed,
			ms(quantile(s.shown, 0.5)), ms(quantile(s.shown, 0.9)), ms(quantile(s.shown, 0.99)))
	}
	// A run in which every request failed and none showed a suggestion
	// measured nothing: its exit status says so.
	shown, failed := 0, error(nil)
	for _, s := range all {
		if s.firstErr != nil {
			fmt.Fprintf(w, "\n%s: the first failed request ended with: %v\n", s.model, s.firstErr)
			if failed == nil {
				failed = s.firstErr
			}
		}
		shown += len(s.shown)
	}
	if err := cmp.Or(errs...); err != nil {
		return all, err
	}
	if shown == 0 && failed != nil {
		return all, fmt.Errorf("no model showed a suggestion: %w", failed)
	}
	return all, nil
}

// typeText plays the typist against model: a request per keystroke, each
// superseding the one before.
func typeText(ctx context.Context, client *tokenpace.Client, model string, cfg config) (stats, error) {
	st := stats{model: model}
	var latest tokenpace.Latest
	rng := rand.New(rand.NewPCG(cfg.seed, 0))
	gap := float64(time.Second) / cfg.cps
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := func(ctx context.Context, p openai.CompletionNewParams, opts ...option.RequestOption) *tokenpace.Stream[openai.Completion] {
		mu.Lock()
		st.requests++
		mu.Unlock()
		return client.NewCompletionStreaming(ctx, p, opts...)
	}
	for i := range len(cfg.text) {
		if i > 0 {
			time.Sleep(time.Duration(gap * (1 + cfg.jitter*(2*rng.Float64()-1))))
		}
		if ctx.Err() != nil {
			break
		}
		st.keystrokes++
		pressed := time.Now()
		params := request(model, cfg.text[:i+1], cfg.maxTokens)
		// A request waits for its response headers, which some servers
		// (Ollama) send only with the first token: each keystroke's runs
		// on a goroutine of its own, so that the next keystroke comes on
		// time and supersedes it. The next waits until this one holds the
		// key, so that a later keystroke always supersedes an earlier one.
		holds := make(chan struct{})
		hold := sync.OnceFunc(func() { close(holds) })
		rctx, done := ctx, func() {}
		if !cfg.typeAhead {
			rctx, done = latest.Begin(ctx, model)
			hold()
		}
		wg.Go(func() {
			defer done()
			var s *tokenpace.Stream[openai.Completion]
			if cfg.typeAhead {
				s = latest.NewCompletionStreaming(ctx, model, params, func(ctx context.Context, p openai.CompletionNewParams, opts ...option.RequestOption) *tokenpace.Stream[openai.Completion] {
					hold() // the key is held once start is called
					return start(ctx, p, opts...)
				})
				hold() // or once it returns a reused completion
			} else {
				s = start(rctx, params)
			}
			took, err := suggest(s, pressed)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && took <= cfg.deadline:
				st.inTime++
				st.shown = append(st.shown, took)
			case err == nil:
				st.late++
				st.shown = append(st.shown, took)
			case errors.Is(err, tokenpace.ErrSuperseded) || errors.Is(context.Cause(rctx), tokenpace.ErrSuperseded):
				st.superseded++
			case ctx.Err() == nil:
				st.failed++
				if st.firstErr == nil {
					st.firstErr = err
				}
			}
		})
		<-holds
	}
	wg.Wait()
	return st, ctx.Err()
}

// suggest reads the suggestion s for the code typed so far up to the end
// of its first line, what ghost text shows. It returns how long after the
// keystroke the first token arrived, or the error that ended the request
// before any token did.
func suggest(s *tokenpace.Stream[openai.Completion], pressed time.Time) (time.Duration, error) {
	for s.Next() {
		if strings.Contains(s.Text(), "\n") {
			break
		}
	}
	s.Close()
	t := s.Timing() // final once Close returned
	if len(t.Chunks) > 0 {
		return t.Chunks[0].Sub(pressed), nil
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("autocomplete: the stream ended without a token")
}

// request is the fill-in-the-middle request for the code typed so far:
// the file up to the cursor as the prompt, the code after it as the
// suffix.
func request(model, code string, maxTokens int) openai.CompletionNewParams {
	return openai.CompletionNewParams{
		Model:     openai.CompletionNewParamsModel(model),
		Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String(fileContext + recentCode + code)},
		Suffix:    openai.String(belowCursor),
		MaxTokens: openai.Int(int64(maxTokens)),
	}
}

// quantile returns the q-quantile (nearest rank) of d, -1 for none.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return -1
	}
	s := slices.Sorted(slices.Values(d))
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func ms(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

// simOptions configures the simulator the example runs on by default:
// every model of cfg on one RTX 4090 each, 30 ms of round trip away.
func simOptions(cfg config) ([]simulate.Option, error) {
	gpu, err := simulate.LookupGPU("rtx-4090")
	if err != nil {
		return nil, err
	}
	engines, err := endpoint.Engines(simulate.Deployment{GPU: gpu}, cfg.models...)
	if err != nil {
		return nil, err
	}
	opts := append([]simulate.Option{simulate.WithRTT(30 * time.Millisecond)}, engines...)
	if cfg.accept > 0 {
		opts = append(opts, simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) { return suggestion(cfg, ri.Prompt) }))
	}
	return opts, nil
}

// suggestion is the simulator's suggestion for prompt: with probability
// cfg.accept, drawn per cursor position, the rest of the word the typist
// is typing and the space after it, then text the typist will not type;
// otherwise only text the typist will not type.
func suggestion(cfg config, prompt string) (string, bool) {
	code, ok := strings.CutPrefix(prompt, fileContext+recentCode)
	if !ok || !strings.HasPrefix(cfg.text, code) {
		return "", false
	}
	const other = "o.Normalize()\n"
	rng := rand.New(rand.NewPCG(cfg.seed, uint64(len(code))))
	if rng.Float64() >= cfg.accept {
		return other, true
	}
	rest := cfg.text[len(code):]
	if i := strings.IndexByte(rest, ' '); i >= 0 {
		rest = rest[:i+1]
	}
	return rest + other, true
}
