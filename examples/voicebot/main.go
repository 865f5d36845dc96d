// Command voicebot is a turn-taking voice assistant loop with a
// human-like latency target: the large model must produce its first token
// within 180 ms or a small model answers instead, and the first complete
// sentence goes to text-to-speech as soon as it has arrived, while the rest
// of the reply is still streaming.
//
// For every turn it prints the time to first token, the time to the first
// sentence, when the first audio would play (a stub TTS takes 120 ms) and
// which model answered.
//
// --gap sets a budget on the large model's longest silence between tokens
// once it has started; --continue then carries a stalled reply on with the
// small model, while --gate holds the large model's words back until its
// first sentence is complete (tokenpace.Probation), so that a stall before
// then falls back to the small model without a word of the large one
// reaching the speaker.
//
// By default it talks to a simulator started in process that serves
// Llama 3.1 70B and Llama 3.2 3B on two H100s; --base-url and
// OPENAI_API_KEY point it at a real OpenAI-compatible endpoint:
//
//	go run ./examples/voicebot
//	go run ./examples/voicebot --base-url http://localhost:8000/v1 --large MODEL --small MODEL
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/simulate"
)

// config is what the flags set.
type config struct {
	large, small string
	ttftBudget   time.Duration
	hedgeAfter   time.Duration
	tts          time.Duration
	maxTokens    int
	turns        []string
	// gap is the large model's Gap budget; 0 sets none.
	gap time.Duration
	// cont carries a reply that breaks after its first tokens on with the
	// small model (Policy.Continue).
	cont bool
	// gate holds the large model's reply back until its first sentence
	// is complete (Policy.Probation).
	gate bool
}

func main() {
	cfg := config{turns: script}
	baseURL := flag.String("base-url", "", "OpenAI-compatible API base URL (default: a simulator started in process)")
	flag.StringVar(&cfg.large, "large", "llama-3.1-70b", "large model, tried first")
	flag.StringVar(&cfg.small, "small", "llama-3.2-3b", "small model, the fallback and hedge")
	flag.DurationVar(&cfg.ttftBudget, "ttft-budget", 180*time.Millisecond, "time to first token allowed to the large model")
	flag.DurationVar(&cfg.hedgeAfter, "hedge-after", 120*time.Millisecond, "start the small model in parallel when the large has not produced a token by then (0: fall back only at the budget)")
	flag.DurationVar(&cfg.tts, "tts", 120*time.Millisecond, "time the stub text-to-speech takes to produce audio")
	flag.IntVar(&cfg.maxTokens, "max-tokens", 48, "max_tokens of each reply")
	flag.DurationVar(&cfg.gap, "gap", 0, "longest silence allowed to the large model between tokens (0: no limit)")
	flag.BoolVar(&cfg.cont, "continue", false, "carry a reply that stalls after its first tokens on with the small model")
	flag.BoolVar(&cfg.gate, "gate", false, "hold the large model's reply back until its first sentence is complete")
	flag.Parse()
	if cfg.ttftBudget <= 0 || cfg.hedgeAfter < 0 || cfg.tts < 0 || cfg.maxTokens < 1 || cfg.gap < 0 {
		fmt.Fprintln(os.Stderr, "voicebot: want --ttft-budget > 0, --hedge-after ≥ 0, --tts ≥ 0, --max-tokens ≥ 1 and --gap ≥ 0")
		os.Exit(2)
	}

	endpoint.Main("voicebot", *baseURL, func() ([]simulate.Option, error) { return simOptions(cfg) }, func(ctx context.Context, ep endpoint.Endpoint) error {
		_, err := run(ctx, os.Stdout, ep, cfg)
		return err
	})
}

// script is what the user says, turn by turn. The third turn pastes a
// long text: its prefill is too slow for the large model's budget. The
// text stays in the history, so the later turns carry a long prompt too.
var script = []string{
	"Hi! Can you help me plan a trip to Lisbon?",
	"What is the best time of year to go?",
	"Here are my notes from last time, summarise them for me: " + strings.Repeat("We walked from Alfama down to the river, ate grilled sardines, took tram 28 up the hill and watched the sunset from a viewpoint. ", 100),
	"Which neighbourhood should I stay in?",
	"Great, thanks. Any tips for getting from the airport?",
}

// systemPrompt keeps replies short, as a voice assistant's must be.
const systemPrompt = "You are a voice assistant. Answer in two or three short spoken sentences."

// run holds the conversation in cfg.turns with the models at ep, prints
// one line per turn to w and returns what each answered turn measured. A
// turn that fails is reported in its line and left out of the history;
// the conversation goes on, and run then returns an error that counts
// them.
func run(ctx context.Context, w io.Writer, ep endpoint.Endpoint, cfg config) ([]turn, error) {
	client := tokenpace.NewClient(ep.Client())
	pol := tokenpace.Policy{Hedge: tokenpace.Hedge{After: cfg.hedgeAfter}, Continue: cfg.cont}
	if cfg.gate {
		pol.Probation = tokenpace.Probation{Sentence: true}
	}
	router, err := tokenpace.NewRouter(client, pol,
		tokenpace.Route{Name: "large", Model: cfg.large, Budget: tokenpace.Budget{TTFT: cfg.ttftBudget, Gap: cfg.gap}},
		tokenpace.Route{Name: "small", Model: cfg.small},
	)
	if err != nil {
		return nil, err
	}

	fmt.Fprintf(w, "large %s (TTFT budget %v), small %s, hedge after %v, TTS %v\n\n", cfg.large, cfg.ttftBudget, cfg.small, cfg.hedgeAfter, cfg.tts)
	fmt.Fprintf(w, "%-4s %8s %14s %11s  %-8s %s\n", "turn", "TTFT", "first sentence", "first audio", "answered", "attempts")
	history := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(systemPrompt)}
	var turns []turn
	failed := 0
	for i, said := range cfg.turns {
		history = append(history, openai.UserMessage(said))
		tr, err := converse(ctx, router, history, cfg)
		if ctx.Err() != nil {
			return turns, ctx.Err()
		}
		if err != nil {
			// The listener heard no answer: the bot would say it did not
			// catch that, and the turn leaves the history, so that the
			// conversation goes on.
			failed++
			history = history[:len(history)-1]
			fmt.Fprintf(w, "%-4d failed: %v\n", i+1, err)
			continue
		}
		turns = append(turns, tr)
		history = append(history, openai.AssistantMessage(tr.reply))
		fmt.Fprintf(w, "%-4d %8s %14s %11s  %-8s %s\n", i+1, ms(tr.ttft), ms(tr.firstSentence), ms(tr.firstAudio), tr.target, tr.attempts)
	}
	fast := 0
	for _, t := range turns {
		if t.firstAudio <= 500*time.Millisecond {
			fast++
		}
	}
	fmt.Fprintf(w, "\n%d of %d turns started speaking within 500 ms, the pause a listener notices.\n", fast, len(cfg.turns))
	if failed > 0 {
		return turns, fmt.Errorf("%d of %d turns failed", failed, len(cfg.turns))
	}
	return turns, nil
}

// turn is what one turn measured.
type turn struct {
	reply string
	// ttft, firstSentence and firstAudio count from when the user finished
	// speaking (the call's start).
	ttft, firstSentence, firstAudio time.Duration
	target                          string // the route that answered
	attempts                        string // every route tried and how it ended
}

// converse asks for the next reply, hands its first sentence to the stub
// TTS as soon as it is complete, and reads the rest.
func converse(ctx context.Context, router *tokenpace.Router, history []openai.ChatCompletionMessageParamUnion, cfg config) (turn, error) {
	start := time.Now()
	s := router.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Messages:  history,
		MaxTokens: openai.Int(int64(cfg.maxTokens)),
	})
	defer s.Close()
	var tr turn
	var text strings.Builder
	audio := make(chan time.Duration, 1)
	spoken := false
	for s.Next() {
		for _, c := range s.Current().Choices {
			text.WriteString(c.Delta.Content)
		}
		if !spoken {
			if sentence, ok := firstSentence(text.String()); ok {
				spoken = true
				tr.firstSentence = time.Since(start)
				go speak(sentence, cfg.tts, start, audio)
			}
		}
	}
	if err := s.Err(); err != nil {
		return tr, err
	}
	if !spoken {
		// The reply was a single unfinished sentence: speak it whole.
		tr.firstSentence = time.Since(start)
		go speak(text.String(), cfg.tts, start, audio)
	}
	tr.firstAudio = <-audio
	t := s.Timing()
	tr.reply, tr.ttft, tr.target = text.String(), t.UserTTFT(), t.Target
	var parts []string
	for _, a := range t.Attempts {
		parts = append(parts, a.Target+" "+string(a.Outcome))
	}
	tr.attempts = strings.Join(parts, ", ")
	if tr.attempts == "" {
		tr.attempts = t.Target + " " + string(tokenpace.OutcomeWon)
	}
	return tr, nil
}

// firstSentence returns the text up to the end of its first complete
// sentence: a full stop, question or exclamation mark followed by a space.
func firstSentence(text string) (string, bool) {
	for i := 0; i+1 < len(text); i++ {
		switch text[i] {
		case '.', '!', '?':
			if text[i+1] == ' ' || text[i+1] == '\n' {
				return strings.TrimSpace(text[:i+1]), true
			}
		}
	}
	return "", false
}

// speak is the stub text-to-speech: the audio of sentence is ready after
// took; it reports when that was, counted from start.
func speak(sentence string, took time.Duration, start time.Time, done chan<- time.Duration) {
	_ = sentence // a real TTS would synthesise it
	time.Sleep(took)
	done <- time.Since(start)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// simOptions configures the simulator the example runs on by default: the
// two models on two H100s each, 20 ms of network round trip.
func simOptions(cfg config) ([]simulate.Option, error) {
	engines, err := endpoint.Engines(simulate.Deployment{GPUs: 2}, cfg.large, cfg.small)
	if err != nil {
		return nil, err
	}
	return append([]simulate.Option{simulate.WithRTT(20 * time.Millisecond)}, engines...), nil
}
