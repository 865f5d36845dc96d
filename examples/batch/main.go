// Command batch pushes short documents (1,500 by default, 10,000 with --full)
// through a rate-limited pool of workers against a server that batches 256
// streams continuously, the nightly job where no single request's latency
// matters and aggregate throughput does.
//
// The pool grows in stages (1, 4, 16, 64, 128, 256 and 512 workers, two
// documents per worker, the last stage taking the rest) so the run shows
// the throughput curve: output tokens per second climb as the server
// batches more streams into each decode step, then flatten once its 256
// slots are full, while time to first token keeps growing as requests
// queue. The default run pushes 1,500 documents and takes a few seconds;
// --full runs the whole night's sweep (10,000 documents, eight per worker
// and stage), which takes about 45 seconds at the default rate limit.
// At the end it prints aggregate throughput and goodput: documents per
// second that finished within the per-document deadline.
//
// By default it runs against a simulator started in process that serves
// Llama 3.1 8B on one H100 (vLLM-like: 256 sequences at once); --base-url
// and OPENAI_API_KEY point it at a real OpenAI-compatible endpoint:
//
//	go run ./examples/batch
//	go run ./examples/batch --base-url http://localhost:8000/v1 --model MODEL
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// config is what the flags set.
type config struct {
	model string
	docs  int
	// stages are the pool sizes, in order; each stage but the last takes
	// perStage documents per worker, the last takes the rest.
	stages    []int
	perStage  int
	rps       float64 // client-side rate limit; 0: none
	docTokens int
	maxTokens int
	deadline  time.Duration // goodput: longest acceptable time per document
	seed      uint64
	progress  io.Writer // where the progress bar goes; nil: none
}

func main() {
	cfg := config{stages: []int{1, 4, 16, 64, 128, 256, 512}, perStage: 2}
	full := flag.Bool("full", false, "run the full sweep: 10,000 documents, eight per worker and stage (about 45 s)")
	baseURL := flag.String("base-url", "", "OpenAI-compatible API base URL (default: a simulator started in process)")
	flag.StringVar(&cfg.model, "model", "llama-3.1-8b", "model to ask")
	flag.IntVar(&cfg.docs, "docs", 1_500, "documents to process (--full: 10,000)")
	flag.Float64Var(&cfg.rps, "rps", 400, "client-side rate limit in requests per second (0: none)")
	flag.IntVar(&cfg.docTokens, "doc-tokens", 64, "tokens per document")
	flag.IntVar(&cfg.maxTokens, "max-tokens", 32, "max_tokens of each answer (a short summary)")
	flag.DurationVar(&cfg.deadline, "deadline", 2*time.Second, "goodput counts documents done within this time of their request")
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the documents")
	flag.Parse()
	if *full {
		cfg.perStage = 8
		if !flagSet("docs") {
			cfg.docs = 10_000
		}
	}
	if cfg.docs < 1 || cfg.rps < 0 || cfg.docTokens < 8 || cfg.maxTokens < 1 {
		fmt.Fprintln(os.Stderr, "batch: want --docs ≥ 1, --rps ≥ 0, --doc-tokens ≥ 8 and --max-tokens ≥ 1")
		os.Exit(2)
	}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		cfg.progress = os.Stderr
	}

	endpoint.Main("batch", *baseURL, func() ([]simulate.Option, error) { return simOptions(cfg) }, func(ctx context.Context, ep endpoint.Endpoint) error {
		_, err := run(ctx, os.Stdout, ep, cfg)
		return err
	})
}

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// stage is what one pool size measured.
type stage struct {
	workers, docs int
	snap          metrics.Snapshot
}

// result is what the whole run measured.
type result struct {
	stages []stage
	total  metrics.Snapshot
	wall   time.Duration
	// queue holds every document's client-side wait before its request
	// went out: the rate limiter's, and the client's own scheduling.
	queue []time.Duration
	// uncounted counts the documents whose server reported no usage:
	// their output tokens are the chunks counted.
	uncounted int
	// abandoned counts the documents in flight when the run was
	// interrupted: not measured, and not the server's failures.
	abandoned int
}

// cutOff reports whether t ended with an error because ctx, the run's,
// ended: an interruption (Ctrl-C), not the server's failure.
func cutOff(ctx context.Context, t *tokenpace.Timing) bool {
	return ctx.Err() != nil && t.Err != nil
}

// measured returns hooks that record each finished request on rec, but for
// those the end of ctx cut off.
func measured(ctx context.Context, rec *metrics.Recorder) tokenpace.Hooks {
	return tokenpace.Hooks{Done: func(c context.Context, t *tokenpace.Timing) {
		if !cutOff(ctx, t) {
			rec.Record(c, t)
		}
	}}
}

// run processes cfg.docs documents, stage by stage, prints the throughput
// curve and the totals to w, and returns them.
func run(ctx context.Context, w io.Writer, ep endpoint.Endpoint, cfg config) (*result, error) {
	slo := metrics.WithSLO(metrics.SLO{E2E: cfg.deadline})
	total := metrics.NewRecorder(slo, metrics.WithoutDetection())
	var queueMu sync.Mutex
	res := &result{}
	client := tokenpace.NewClient(ep.Client(),
		tokenpace.WithHooks(measured(ctx, total)),
		tokenpace.WithHooks(tokenpace.Hooks{Done: func(_ context.Context, t *tokenpace.Timing) {
			queueMu.Lock()
			res.queue = append(res.queue, t.Queue())
			if t.Err == nil && !t.UsageReported && t.OutputChunks > 0 {
				res.uncounted++
			}
			if cutOff(ctx, t) {
				res.abandoned++
			}
			queueMu.Unlock()
		}}))
	router, err := tokenpace.NewRouter(client, tokenpace.Policy{},
		tokenpace.Route{Name: "pool", Model: cfg.model, Limit: tokenpace.Limit{RPS: cfg.rps}})
	if err != nil {
		return nil, err
	}

	var bar *progressbar.ProgressBar
	if cfg.progress != nil {
		bar = progressbar.NewOptions(cfg.docs, progressbar.OptionSetWriter(cfg.progress), progressbar.OptionSetDescription("documents"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	rateText := "no rate limit"
	if cfg.rps > 0 {
		rateText = fmt.Sprintf("at most %g requests/s", cfg.rps)
	}
	fmt.Fprintf(w, "%d documents of %d tokens, %d-token answers, %s, %s; goodput: done within %v\n\n",
		cfg.docs, cfg.docTokens, cfg.maxTokens, cfg.model, rateText, cfg.deadline)
	fmt.Fprintf(w, "%7s %6s %8s %9s %9s %9s %9s %7s\n", "workers", "docs", "docs/s", "tokens/s", "TTFT p50", "TTFT p99", "TPOT p50", "failed")

	start := time.Now()
	next := 0
	for i, n := range cfg.stages {
		docs := n * cfg.perStage
		if i == len(cfg.stages)-1 {
			docs = cfg.docs - next
		}
		docs = min(docs, cfg.docs-next)
		if docs <= 0 || ctx.Err() != nil {
			break
		}
		rec := metrics.NewRecorder(slo, metrics.WithoutDetection())
		sctx := tokenpace.ContextWithHooks(ctx, measured(ctx, rec))
		pool(sctx, n, next, docs, func(doc int) {
			process(sctx, router, cfg, doc)
			if bar != nil {
				_ = bar.Add(1)
			}
		})
		next += docs
		st := stage{workers: n, docs: docs, snap: rec.Snapshot()}
		res.stages = append(res.stages, st)
		s := st.snap
		fmt.Fprintf(w, "%7d %6d %8.1f %9.0f %9s %9s %9s %7d\n", n, docs, s.RequestThroughput, s.OutputThroughput,
			msOf(s.TTFT, s.TTFT.P50), msOf(s.TTFT, s.TTFT.P99), msOf(s.TPOT, s.TPOT.P50), s.Failed)
	}
	if bar != nil {
		_ = bar.Finish()
	}
	res.wall = time.Since(start)
	res.total = total.Snapshot()
	res.summarize(w, cfg.deadline)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if t := res.total; t.Completed == 0 && t.Failed > 0 {
		return res, fmt.Errorf("all %d documents failed (%s)", t.Failed, counts(t.Errors))
	}
	return res, nil
}

// summarize writes the run's totals to w: throughput, failures by error,
// goodput within deadline and the client-side wait before sending.
func (r *result) summarize(w io.Writer, deadline time.Duration) {
	t := r.total
	fmt.Fprintf(w, "\n%d documents in %.1f s: %.1f docs/s, %.0f output tokens/s aggregate (%d failed)\n",
		t.Requests, r.wall.Seconds(), float64(t.Completed)/r.wall.Seconds(), float64(t.OutputTokens)/r.wall.Seconds(), t.Failed)
	if t.Failed > 0 {
		fmt.Fprintf(w, "failed by error: %s\n", counts(t.Errors))
	}
	if r.abandoned > 0 {
		fmt.Fprintf(w, "interrupted: %d documents in flight abandoned, not counted\n", r.abandoned)
	}
	if r.uncounted > 0 {
		fmt.Fprintf(w, "note: the server reported no token usage for %d of %d documents: their output tokens are the chunks counted, fewer than the tokens when a chunk carries several\n",
			r.uncounted, t.Completed)
	}
	fmt.Fprintf(w, "goodput: %.1f docs/s (%d of %d done within %v)\n",
		float64(t.Good)/r.wall.Seconds(), t.Good, t.Requests, deadline)
	q := metrics.DistOf(r.queue)
	fmt.Fprintf(w, "client-side wait before sending (rate limiter, scheduling): p50 %s, p99 %s, max %s\n", ms(q.P50), ms(q.P99), ms(q.Max))
}

// pool runs do for documents first to first+n-1 on workers goroutines.
func pool(ctx context.Context, workers, first, n int, do func(doc int)) {
	docs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for d := range docs {
				do(d)
			}
		})
	}
feed:
	for d := first; d < first+n; d++ {
		select {
		case docs <- d:
		case <-ctx.Done():
			break feed
		}
	}
	close(docs)
	wg.Wait()
}

// process asks for a summary of document doc and reads the answer.
func process(ctx context.Context, router *tokenpace.Router, cfg config, doc int) {
	s := router.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Summarise the document in one sentence."),
			openai.UserMessage(document(cfg.seed, doc, cfg.docTokens)),
		},
		MaxTokens: openai.Int(int64(cfg.maxTokens)),
	})
	for s.Next() {
	}
	s.Close()
}

// words are short English words: about one token each, with their space.
var words = strings.Fields(`the and for are but not you all any can had her was one our out day get has him his how
man new now old see two way who big end far few got key law lot low map may net own pay per red run sea set six
sky sun ten top try war win yes yet act add age ago air arm art ask bad bag bed box buy car cup cut dog dry due`)

// document returns document i: about tokens tokens of words, different for
// every i.
func document(seed uint64, i, tokens int) string {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	var b strings.Builder
	for range tokens - 8 { // the chat framing adds a few tokens
		b.WriteByte(' ')
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}

// counts lists m's counts, largest first: "error_event 4, 502 2".
func counts(m map[string]int64) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// msOf is ms(d) for a figure of dist, or "-" when dist holds no value (a
// stage whose documents all failed has no TTFT, not one of 0 ms).
func msOf(dist metrics.Dist, d time.Duration) string {
	if dist.Count == 0 {
		return "-"
	}
	return ms(d)
}

// simOptions configures the simulator the example runs on by default:
// cfg.model on one H100 SXM, at most 256 sequences batched at once.
func simOptions(cfg config) ([]simulate.Option, error) {
	return endpoint.Engines(simulate.Deployment{MaxRunning: 256}, cfg.model)
}
