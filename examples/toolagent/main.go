// Command toolagent is a small function-calling agent under a Router: for
// each city it asks a model for the weather, runs the get_weather call the
// model makes, and sends the result back for the answer. A primary model is
// tried first and a backup takes over when it fails.
//
// It shows the Router's rule for tool calls, restart and tell: when the
// primary's stream breaks in the middle of a call, the call is never
// continued (half a call cannot be carried on); the backup is asked the
// same question from the start, Stream.Restarted tells the agent on the
// first chunk of the new output, and the accumulated call is the backup's,
// whole and once. The agent runs only whole calls.
//
// By default it talks to a simulator started in process whose primary's
// connection drops in the middle of every second call (--reset-every);
// --base-url and OPENAI_API_KEY point it at a real endpoint instead:
//
//	go run ./examples/toolagent
//	go run ./examples/toolagent --base-url http://localhost:8000/v1 --primary MODEL --backup MODEL
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/simulate"
)

// config is what the flags set.
type config struct {
	primary, backup string
	// resetEvery drops the primary's connection in the middle of every
	// resetEvery-th call, through the simulator's fault header; 0 never.
	resetEvery int
	cities     []string
}

func main() {
	cfg := config{cities: []string{"Paris", "Lisbon", "Tokyo", "Lima"}}
	baseURL := flag.String("base-url", "", "OpenAI-compatible API base URL (default: a simulator started in process)")
	flag.StringVar(&cfg.primary, "primary", "llama-3.1-70b", "model tried first")
	flag.StringVar(&cfg.backup, "backup", "llama-3.2-3b", "model that takes over when the primary fails")
	flag.IntVar(&cfg.resetEvery, "reset-every", 2, "with the simulator: drop the primary's connection in the middle of every Nth tool call (0: never)")
	flag.Parse()
	if cfg.resetEvery < 0 {
		fmt.Fprintln(os.Stderr, "toolagent: want --reset-every ≥ 0")
		os.Exit(2)
	}
	if *baseURL != "" {
		cfg.resetEvery = 0
	}

	endpoint.Main("toolagent", *baseURL, func() ([]simulate.Option, error) { return simOptions(cfg) }, func(ctx context.Context, ep endpoint.Endpoint) error {
		_, err := run(ctx, os.Stdout, ep, cfg)
		return err
	})
}

// weatherTool is the one function the agent offers.
var weatherTool = openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
	Name:        "get_weather",
	Description: openai.String("The current weather in a city."),
	Parameters: openai.FunctionParameters{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required":   []string{"city"},
	},
})

// question is what the agent asks about city.
func question(city string) string { return "What is the weather in " + city + "?" }

// answer is what one city's exchange gave.
type answer struct {
	city      string
	call      string // the arguments of the call the agent ran
	restarted bool   // the Router restarted the call's stream
	attempts  string // every route tried for the call, and how it ended
	ttft      time.Duration
	reply     string
}

// run asks about every city of cfg at ep, prints one line per city to w
// and returns the answers.
func run(ctx context.Context, w io.Writer, ep endpoint.Endpoint, cfg config) ([]answer, error) {
	backup := tokenpace.Route{Name: "backup", Model: cfg.backup}
	if cfg.resetEvery > 0 {
		backup.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "none")}
	}
	router, err := tokenpace.NewRouter(tokenpace.NewClient(ep.Client()),
		tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 2 * time.Second, Gap: 500 * time.Millisecond}, Continue: true},
		tokenpace.Route{Name: "primary", Model: cfg.primary}, backup)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "%-7s %-20s %-9s %8s  %-42s %s\n", "city", "call", "restarted", "TTFT", "attempts", "answer")
	var out []answer
	for i, city := range cfg.cities {
		var opts []option.RequestOption
		if cfg.resetEvery > 0 && (i+1)%cfg.resetEvery == 0 {
			// Only the primary reads it: the backup's route sends "none".
			opts = append(opts, option.WithHeader(simulate.FaultHeader, "reset;after=4"))
		}
		a, err := ask(ctx, router, city, opts)
		if err != nil {
			return out, fmt.Errorf("%s: %w", city, err)
		}
		out = append(out, a)
		fmt.Fprintf(w, "%-7s %-20s %-9v %8s  %-42s %s\n", a.city, a.call, a.restarted, ms(a.ttft), a.attempts, a.reply)
	}
	return out, nil
}

// ask asks for the weather in city, runs the call the model makes and
// returns the model's answer with what the call measured.
func ask(ctx context.Context, router *tokenpace.Router, city string, opts []option.RequestOption) (answer, error) {
	a := answer{city: city}
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question(city))}
	s := router.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Messages:  msgs,
		Tools:     []openai.ChatCompletionToolUnionParam{weatherTool},
		MaxTokens: openai.Int(64),
	}, opts...)
	for s.Next() {
		// A caller that shows the call as it streams drops what it showed
		// here; Accumulated starts over by itself.
		a.restarted = a.restarted || s.Restarted()
	}
	s.Close()
	if err := s.Err(); err != nil {
		// The call may be incomplete: never run it.
		return a, err
	}
	t := s.Timing()
	a.ttft = t.UserTTFT()
	var parts []string
	for _, at := range t.Attempts {
		parts = append(parts, fmt.Sprintf("%s %s %s", at.Target, at.Kind, at.Outcome))
	}
	a.attempts = strings.Join(parts, ", ")
	msg := s.Accumulated().Choices[0].Message
	if len(msg.ToolCalls) != 1 {
		return a, fmt.Errorf("the model made %d calls, want 1 (it said %q)", len(msg.ToolCalls), msg.Content)
	}
	call := msg.ToolCalls[0]
	a.call = call.Function.Arguments
	result, err := getWeather(call.Function.Arguments)
	if err != nil {
		return a, err
	}
	msgs = append(msgs, msg.ToParam(), openai.ToolMessage(result, call.ID))
	res, err := router.New(ctx, openai.ChatCompletionNewParams{
		Messages:  msgs,
		Tools:     []openai.ChatCompletionToolUnionParam{weatherTool},
		MaxTokens: openai.Int(64),
	})
	if err != nil {
		return a, err
	}
	a.reply = res.Choices[0].Message.Content
	return a, nil
}

// getWeather is the stub behind get_weather: a forecast for the city its
// JSON arguments name.
func getWeather(arguments string) (string, error) {
	var args struct {
		City string `json:"city"`
	}
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return "", fmt.Errorf("get_weather arguments %q: %w", arguments, err)
	}
	if args.City == "" {
		return "", errors.New("get_weather: no city")
	}
	return fmt.Sprintf("%d °C and sunny in %s", 14+len(args.City), args.City), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// simOptions configures the simulator the example runs on by default: the
// two models on two H100s each, 20 ms of network round trip; a question
// gets a get_weather call, a tool result an answer that repeats it.
func simOptions(cfg config) ([]simulate.Option, error) {
	engines, err := endpoint.Engines(simulate.Deployment{GPUs: 2}, cfg.primary, cfg.backup)
	if err != nil {
		return nil, err
	}
	return append(engines,
		simulate.WithRTT(20*time.Millisecond),
		simulate.WithFaultHeader(cfg.resetEvery > 0),
		simulate.WithToolCalls(func(ri simulate.ReplyInfo) []simulate.ToolCall {
			city, ok := strings.CutPrefix(ri.Prompt, "What is the weather in ")
			if !ok {
				return nil
			}
			args, _ := json.Marshal(map[string]string{"city": strings.TrimSuffix(city, "?")})
			return []simulate.ToolCall{{Name: "get_weather", Arguments: string(args)}}
		}),
		simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
			return "Right now it is " + ri.Prompt + ".", true
		}),
	), nil
}
